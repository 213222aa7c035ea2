"""The docs say what the code does: the Plan examples of docs/plan-format.md are the shipped plans
and prove; every step op is in its table; docs/proved.md names every open question the prover can
report and every assumption a proof can carry."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import shflx
from shflx.amd.permute import HALF_WAVE_ASSUMPTION
from shflx.plan import STEP_TYPES, plan_to_dict
from shflx.verify.api import OPEN_QUESTION_TEXT

ROOT = Path(__file__).resolve().parents[1]
PLAN_DOC = (ROOT / "docs" / "plan-format.md").read_text()
PROVED_DOC = (ROOT / "docs" / "proved.md").read_text()


def _json_blocks(text: str) -> list[str]:
    return re.findall(r"```json\n(.*?)```", text, re.S)


def test_every_step_op_is_in_the_table():
    rows = re.findall(r"^\| `([\w.]+)`(?: / `([\w.]+)`)? \|", PLAN_DOC, re.M)
    documented = {op for row in rows for op in row if op}
    assert set(STEP_TYPES) <= documented, set(STEP_TYPES) - documented


@pytest.mark.parametrize("block", [b for b in _json_blocks(PLAN_DOC) if '"..."' not in b and "..." not in b])
def test_plan_examples_are_the_shipped_plans_and_prove(block):
    doc = json.loads(block)
    assert shflx.prove(doc).status == "proved"
    shipped = [json.loads(p.read_text()) for p in (ROOT / "patterns" / "plans" / "correct").glob("*.json")]
    assert any(plan_to_dict(shflx.load_plan(s))["steps"] == plan_to_dict(shflx.load_plan(doc))["steps"]
               for s in shipped)


def test_proved_md_names_the_open_questions_and_assumptions():
    for q in OPEN_QUESTION_TEXT:
        assert f"**{q}**" in PROVED_DOC, q
    assert HALF_WAVE_ASSUMPTION.split(":")[0] in PROVED_DOC       # "Q5"
    assert "rotate" in PROVED_DOC
