"""cuRAND's device API on each AMD device (the GPU, else the emulator): NVIDIA's own curand_kernel.h
(header-only CUDA, read from the nvidia-curand-cu12 wheel as nvcc reads the toolkit's), its
generators' first draws from fixed seeds against an H200's for the same kernel
(hw_tests/nvidia/curand_values.cu, nvcc 13.0, sm_90): XORWOW with skip-ahead (curand, uniform,
uniform_double, normal, poisson), Philox4_32_10 (curand4, uniform4, normal2_double), MRG32k3a
(curand, uniform_double, log_normal) and scrambled Sobol32, 64 threads each. Every draw is bit
for bit the H200's except the float Box-Muller ones (curand_normal, curand_log_normal), which call
the fast intrinsic __sincosf: its error is an absolute bound (CUDA Programming Guide, "Intrinsic
Functions": 2^-21.41 for |x| <= pi) that the H200's sin.approx and AMD's v_sin_f32 each meet, so
a normal draw, sqrt(-2 log u) <= 6.7 times it, may differ by 2 * 6.7 * 2^-21.41 < 2^-18, and a
log-normal one, exp(mean + 2 * normal), by that times 2 relative.

  pytest hw_tests/amd/test_curand_hw.py"""
from __future__ import annotations

import re

import numpy as np
import pytest

from hw_devices import ROOT, code_object, device_params, require

PROGRAM = (ROOT / "hw_tests" / "nvidia" / "curand_values.cu").read_text()
SOURCE = "#include <curand_kernel.h>\n" + re.search(r"// kernel begin\n(.*)// kernel end", PROGRAM, re.S).group(1)
N_DRAWS = int(re.search(r"#define N_DRAWS (\d+)", PROGRAM).group(1))
SEED = 1234
# the H200's output, one line per thread (./curand_values)
H200 = """
0: 7485b394 db6a6a85 3f15195c 3fe92d049b2f3440 3f93594d bf84e019 6 1cbe137c 3fc9c8d8 3f4c170b 3fe3ace1cc84175a 9650c684 3fa978f102cbbcc4 3f8910ac 9e3779b9 1e3779b9
1: 899fbaf4 cf2ac63b 3c8f8db7 3fe994454407c980 3fb1ec27 bfb76d07 6 653d7a73 2c03a11b 3ecd73ed 3fbfdfc3e6264d08 ac5068d7 3fe47b792218cde5 402b2432 1e3779b9 5e3779b9
2: be170358 8a962596 3e483fb7 3fb8004cd163e24c 3f080994 3f43d9e8 6 f6822cd6 72777f53 3d21ccf8 bfd54d74d0254a7a 30e205e0 3fdace5f06227b95 3e1b0f60 5e3779b9 de3779b9
3: 891d7bd4 7f49507f 3f65e769 3fefd3bcdea9bc40 3be55c17 be7c7ba7 4 14b59fa5 5e6a30be 3f0f8540 bff2649b65221bb1 288c933e 3fce8184e1e7bd7d 3f552c2c de3779b9 fe3779b9
4: ef0c701 a672c874 3f3662e1 3fee9f4fb12343ee c07bd4df 3eb6fcc6 3 ec0bff5c 962ca202 3f365e4e 3fdc5775bbc3ebfb ef3ecef7 3feb2724504af4a6 405585db fe3779b9 7e3779b9
5: 615a80aa 51410e03 3f211b8a 3fe8f808fe535a0e 3ea9a0e1 3ef3df5d 3 3fc0ce58 26a9bd1b 3d08f211 bfaa0b18a7556ba3 a9d0589e 3fc0b275f4a1b24d 41b7670b 7e3779b9 3e3779b9
6: 237be142 2d46b9fd 3edaee2e 3fec61adc0f2ed9e bffbc857 bdb6f148 6 69e8085e 2e77eb2a 3f5c7d90 3fb0a92c781eb60d c6022142 3feee53ad919250c 3f7bcde9 3e3779b9 be3779b9
7: 13593106 b226ea94 3f048acb 3fdcaf439a5656bf bfb88784 3e90afb9 4 acba3cf8 eddab463 3f56a74a bfb3cc5c12667794 4d390eb0 3fdb9b320c49b3dd 419fb775 be3779b9 ae3779b9
8: da335c5a 1a9b3f7e 3ef6db3d 3fe52695c1c9a852 bf4b1190 3e2c4b90 3 59ea9552 98ddf516 3ee84857 3fcee81b6051aa9f aab66661 3fe0b3f07282e74e 408cdcad ae3779b9 2e3779b9
9: 3dc012df b9ba2d3e 3ee2bb74 3fedb3e68b993f5e bfbd3287 3f11736c 2 595fc6aa 54c06719 3f5b3041 3fd8080d11b5e104 2e8f5fdc 3fb8e6ff16549642 3f3c7df9 2e3779b9 6e3779b9
10: fa69387d 9fb5d6c8 3f0bf840 3fe7433d18ae237c bf7bd0dd 3fbdfee3 6 13120d5e 8f5472f9 3dad4f39 3fcd3c732826bf75 85f53d4c 3fc965e9373c3367 3c9c9950 6e3779b9 ee3779b9
11: 37c5b5fd d235e103 3f62ffd4 3f92342489bb8d30 3fe83da9 3f1e3999 4 e68b874e 1098013 3e9d3985 bfe99f702d077cf7 59e424cf 3fea62254caa2074 40a269be ee3779b9 ce3779b9
12: e0801b83 8775bab0 3f5e495e 3fe16fede7af1622 be867af4 bf935aa8 7 6c64be4 5114349c 3e1d263d 3fabe90b2d54f07b ad93ed6f 3fc99ba72f68137e 400c86de ce3779b9 4e3779b9
13: 876c1fd2 77bc5018 3e8a5fc7 3fe91b05acc08748 bf8e4ffa 3f6f543c 5 5ccefba3 93b69a64 3f397d1e 3ff090c80ece95d4 7f06c35b 3fb2d53627601137 3c14ba8c 4e3779b9 e3779b9
14: 9b25cc03 cba385e4 3f4d7c82 3fe3d652ca00aa80 bfa4d79f beb32a69 2 ae88134 cb32c739 3ee99d1d 400123e8c3bbf09b b3f1f20a 3fdeffd0ec4ed992 3f065a91 e3779b9 8e3779b9
15: fb2889e9 d1c2c05d 3d474dbf 3fee46a81af020ee 3e12bdf9 3ddde813 3 b6e15d4e d702c4a3 3f43e0ae bfed38e0b19639d7 f4a334b9 3fd8c7832bfae217 3f02004a 8e3779b9 863779b9
16: 220bd007 8a41a5f9 3f382f35 3fcf255f28eb6a4e 3e400338 bf38e059 4 235de392 50bc7d1f 3f7b36f9 bf9a9f7878ccacc4 21a9d127 3fd7fd21aed5a880 3ebf2dd8 863779b9 63779b9
17: 32559f77 37778bfe 3e9df64f 3fe2c1826af2326e 3f564d7d bf9ee864 8 aa7cac d2d6f6d2 3f2db252 3fe8120a41c50716 a6c45695 3feade9cbb6fbdf6 3f18dbc4 63779b9 463779b9
18: 520348f8 a51e248a 3f3cc0b0 3fc42a98a6b68a42 3ff2250d bf841d44 4 f842761c 917283e 3ede33a6 3feef454ab2f9a83 e72d582e 3fe35c0d574e26e5 3f96e01c 463779b9 c63779b9
19: dfe729d9 eedec11d 3ef9ebaf 3faa4a8512174228 bfcd15de bfc59f13 5 75369fd6 cbebfe16 3e0148ce bff9f779bd024f35 f22c3bec 3fecf184c2212d63 407ab123 c63779b9 e63779b9
20: edb35b2c 71d7863a 3e9b0cba 3fd9b991b3a4bbcf 40302e37 3f5aa981 1 3b239278 2acb3c37 3f172d64 3fe890a5fb16810e 76feb8e 3fb77e62632e2e53 3e4437e1 e63779b9 663779b9
21: 82d11581 b3f846e4 3f332c97 3fd52c51b844ffbb 3e8a724b bddc6fc6 2 9593e991 2252cb15 3ec15b28 3fe195ef7c487c2d eeae0db 3fe09afeba2e89f6 3f92a4e5 663779b9 263779b9
22: f9f32485 a3ee33cb 3f19a6b1 3fd2030671f8f533 3f585eec 3e67d06e 5 8834e58c 2498c83b 3e1bb625 3fce100d3889b3d8 f9047883 3fd781510cf0932c 3f153dea 263779b9 a63779b9
23: 132faba2 dc7ab68e 3ecb4803 3fe0ff7315c363b4 3f5b821f bf2173f5 2 5feefe83 3faf3304 3d3cdc97 3ffcc5a63e54c0ba 5e3f84d6 3fd07c475e757644 3f269975 a63779b9 b63779b9
24: 5ad85db8 b0b79c53 3e904e83 3fcb12800fbf5b42 3fa4f1a8 3f29cde7 4 89ee584c 9c559a98 3e9e953d bfe2f2bb46c3bc5a bdb04ec0 3fe92c95940d661e 3eed51a4 b63779b9 363779b9
25: 54770c04 f568f099 3ee98163 3fe7cfe6c9ad8ad0 bf43307c 3f89a2d2 5 c286e248 56aed990 3f5d5bf4 3fa4806b5c466f9a 77dfce40 3fe82be53b1bd626 3f70e527 363779b9 763779b9
26: 1108a2c4 df506a86 3e3a84f7 3fe2dc46590494a2 be681b51 bfd42be5 6 e23318cc 1f78e588 3f75e374 bff8b0f8e72fa75e 1623254 3fecc715167e8838 4048fcf4 763779b9 f63779b9
27: 2d2e9aff 5fe3787f 3f35e6ba 3fe401c988d5b65c 3e309496 3e644f3d 6 78723ee7 202ac119 3f10ef19 bfe9d19599b8fc4a a8d108b 3f9f20aa7569ab2b 3ef7f332 f63779b9 d63779b9
28: e27e82e9 c7977af 3eff3dd4 3fea89dcacb21290 3f6631de 3f886023 3 a7bb7953 1048939b 3ef59fee 3fe2ba6125bf4d71 a4560d25 3fd64bdecc33f0e5 401811e2 d63779b9 563779b9
29: 70bd7dc0 745eee44 3f3cfe1d 3fe6715cb42e9cbe 3db279e0 3d70a408 3 1c1be1d7 edf535ed 3ecef3a6 bff708e02b51abf8 f1658425 3fb9650dc0bb803b 40367c42 563779b9 163779b9
30: 5d54a49 1c7f2a 3f3e0653 3fe110bd60103064 bfc21ea2 bec06b33 3 f85f9023 7caf669c 3f1e9e9e 3fc8961ae57ba8cf 5873d35d 3f9350ae43c4de46 410a1b7a 163779b9 963779b9
31: e85984d6 cd05ee2b 3f4b53a1 3febf6f8d509859c 3f9b8141 3ffbdc9a 4 5a81486a 5689e05b 3e9c25c7 4001ad68a225d28c 18725b7b 3fe0279578b05108 40f8f358 963779b9 923779b9
32: 9a401277 97cbadeb 3f21b0b7 3fbaf5c2de60c93c bf9ff37e 3fcf16fb 5 da0282b 1e4a557b 3f124601 bfe4cbab2565ce82 9287a797 3fd84acda99511e8 433676db 923779b9 123779b9
33: 1b0f1857 9b599910 3f781009 3fe7f685aaaf4e78 3ea6b893 3fb63a76 6 d908e350 994065fb 3eb118dd bfe8f20399acaf48 b80c52e5 3fbdc5c5d14e7681 4114860f 123779b9 523779b9
34: 99323297 15fad0c2 3e1a1af7 3fcfc512f3ff911a 3f90c7b3 3e327641 4 e574b4e9 65939e23 3eebbf22 bfb46fd8c9330707 bfc6f94a 3fec6399fd0d50b8 41152f9a 523779b9 d23779b9
35: 5c32b6f5 ac604e86 3f6f6421 3fe36a787ec61930 3f0805c1 bf0380bb 3 27d11156 21e13c2b 3f1153bd 3fe839e4b56483de efd33695 3fc3caa87c28738e 41934836 d23779b9 f23779b9
36: 80d2c7f3 bcbe21fc 3f3c15e4 3fe1d8a4306c9cc6 3f808d87 bdb0737d 3 d56b9662 aad49a6e 3d5f1e51 3fffd7275646ffe0 baabdc8f 3fd7d8557f779dce 3f1f0bba f23779b9 723779b9
37: ba74ac2b 87a5b611 3e6fc330 3fd564ade9fd88d3 4003fd60 bf84b222 4 4ae3cf5b 85584ac2 3f792b23 bfb9089b6bedc882 93f31e9a 3fe0bddcea6b015c 3d9c82c0 723779b9 323779b9
38: 4c9f29e6 495f5abd 3f217187 3fec2f575a5a54b0 3e532110 bf6f1ba7 4 1c013035 b142ac70 3f2c25a3 3fe2fc7fedb91f49 220b9b23 3fe605b7b5faaafc 3d48d494 323779b9 b23779b9
39: 59e54329 462e16c 3ea8e723 3fe1c340c4816ecc 3fce24c6 bf57b01e 3 4b93e39e ce267040 3ea2b915 4001527d45281e67 5a05869d 3fe7e522f762118c 40bc39ae b23779b9 a23779b9
40: aad63e7 d9a79314 3f532fe8 3fbc61466aeef4bc 3ef72fda 3f539f44 5 d5c35be4 3df35717 3f76f417 3fd289ad1dda2615 77949d7b 3fe5f9a70bf0d161 4076334f a23779b9 223779b9
41: e04b0df4 f75ddf6f 3e6269e8 3fe2492392bbad64 c003d38a bf1ea64b 4 cbc81c44 8d97ac87 3eb6f892 3ffc7d13b984338a 90b4dc4 3fe1c3009920337d 3f15165d 223779b9 623779b9
42: 29690b24 d93ad12b 3e03e87c 3fe085d437380468 3fb1b20c beb37908 6 8e83a727 f40ee36 3f21566a 3fc352534fe96037 52c1e05a 3fddf180437229b8 3db2c510 623779b9 e23779b9
43: b3e0cc47 4affd4e0 3f66fd01 3fdcc63510f8d9fd bec102e9 3e8df872 3 9fa8af62 7096b151 3ec93513 3ffae3cd36599e3d 4daf528f 3fdd6b59e3c4a464 402b18fe e23779b9 c23779b9
44: 51b45a68 e03ebe83 3f656326 3fda858936cd7f43 3e7a2c28 bdd7879c 4 df8c4e5f a788ff37 3df5530e bff9068199462e96 67d51cda 3fdf8463293b14f5 3eacbf0a c23779b9 423779b9
45: 7c042dea 353fe396 3ed7dc0d 3feb85f85be5f802 bf8f373f 3ff0d5e0 4 27718af0 ca080adf 3e224025 bfe8e7644924ecc0 a7b72ce0 3fdfd5fc203db2d7 3fe2e71a 423779b9 23779b9
46: 6e9963b5 6437f6f4 3e78e3c7 3fd5901619a078a7 3faa66cd b9960ba9 4 2cbcd45 837fd455 3f07b18c bfddfdde496f8ab3 1e62d17d 3fed38f256fb7dda 3e8ca80a 23779b9 823779b9
47: 938f9d73 64fbe223 3f3b5613 3fe46f00da268e9e c0020d0c 3f8b58c0 7 9355f065 b0755673 3e0b4eb6 bfd1176fc89bbe85 4cf1cec7 3fe3d4f72710ddc7 40b3a929 823779b9 8a3779b9
48: 336cdfd2 2234b994 3ee16ead 3fbf6d41e21a8a1c 3f47ebd7 bf8cb098 7 c6189cab 38d4b2c4 3f16c877 3fd491a4e1424d4a 31bc43c5 3fde599fca872b75 41a46ea2 8a3779b9 a3779b9
49: a130ed38 b12fc532 3db580b9 3fbf5e26b02c8adc bf0b45a4 be14ce73 2 9d7c4d8e e98f2a86 3e36d8c7 3fedfd168b8e4d7a b6a273eb 3feaa13e8a9da410 40cd42f4 a3779b9 4a3779b9
50: 26cd02c3 e430d068 3ee10489 3fe7d1711a9bbc3c 3f1143ef bfbc0fa3 5 bcbfa58d d0dcb5dd 3eec0c9f bff0c5deb2f46795 2b87158b 3fdb048c254eb66b 41dede4b 4a3779b9 ca3779b9
51: b11c1b 3904e11e 3f0cecdb 3fef85fdfe0716aa 3f61c8ce 3ef112d3 5 7506a1b2 e4cea1ef 3f4393cd 40030679e9bc57bf f23ab6d4 3fe4c748a2d6b24d 428d5cbd ca3779b9 ea3779b9
52: 8f2c7337 e40ca55e 3eb1ceb2 3fdf1b4a09b3b689 bf903e5a bf1e2b74 6 4b1e5c36 34e3286e 3c240159 bfe0934bfd4fa2b8 ad451e0f 3fc044837247ef51 4044a355 ea3779b9 6a3779b9
53: 4bc40a6b 5e0b7760 3e800f16 3fe5836a4927134a 3f544afc bfd6f731 4 3e0b55f9 c6f8571 3f38e9a0 bff167bd4b39c592 58991b0a 3feb50ba440ce812 3fa7c7a6 6a3779b9 2a3779b9
54: 8869954f b70b2806 3f58ae4d 3fb85fab05b5a1d4 3f97bcd4 3e5e343e 5 7219b89f 7dfac30 3f52c02b bfe14bdde1111138 c76b39c6 3fccb841fa726dde 3ea649a0 2a3779b9 aa3779b9
55: 60d4372b 149b384 3f1df98d 3fecfe57d7fe3fec 3eba07e8 be3e2f5b 6 15c481f1 f1e25c5c 3f0bfaba bfe384dcdbd39f62 64c0c495 3fe9c61a632abb8c 3f6aa3b7 aa3779b9 ba3779b9
56: e150f22e 70329c03 3f0d2c4f 3fe637094d1fcad0 bfc40196 3f3418e5 5 e0b58e3c 67450b26 3f31d14f 3fd598a0a93eeeb8 94617db1 3fd22456234faa53 40884b3d ba3779b9 3a3779b9
57: 55faca90 a6e4ff3d 3f700b9d 3fe1ccde51aa6102 3dbb9daf c011a8ce 4 47b21eac 73d63c04 3e93240a 3febfb5ebd35338d 893086b9 3fc135029f8c4725 409c3b18 3a3779b9 7a3779b9
58: 735651fd 112c3b26 3f3dfb48 3fbf8f19419f455c bd124c50 3e968f2e 3 bc961fba 8a67f672 3f1ba236 bfd8b1aff7eed9bb a5389d3b 3fd86fff10f36f3d 3c3e000b 7a3779b9 fa3779b9
59: 79ad01d9 950fd325 3f53ce74 3fd2d702fee418bd be5bf242 bf5c6818 4 365fc309 da636b7a 3efbbece 3fdfe178a4dc86a4 50071f3d 3fe9aacfae94738e 3d9cb4e5 fa3779b9 da3779b9
60: 8a49e54b 81176cea 3e658842 3fb8b4252fe9add4 3f869b9f 3e8ee69d 7 9b9f18aa 72c0b618 3f7f7c3b bff45b12e938b41d 96a79646 3fe925bea107d0a2 432df581 da3779b9 5a3779b9
61: ae5a058b a3bcc30b 3f3d8dc4 3fc482a561134e12 3f5d2a45 3f94f13f 7 c3c79af d82ded68 3f273323 bf8dd29f0352bc00 473020a9 3fe7a7eedcb01a03 402dc326 5a3779b9 1a3779b9
62: 93dbd294 606e922b 3ebb0115 3fe33c7eb870463c bf1ead46 bf4ff2e5 7 444af383 596ccaf1 3eaa6215 bfe2fafd72a8e38c 2074cc79 3fd452faef17bede 42269920 1a3779b9 9a3779b9
63: cadcc4de 6c41f775 3e671fa3 3fe565efa4455a50 bfb0fc1c 3e5b3958 6 cd669692 f899b9f 3f061dd3 bff1d81728f2257b a35dd7f6 3f95eb6cc5e533ce 412e3326 9a3779b9 983779b9
"""
# each draw's bits: u32, f32 and f64 exact; "normal" within 2^-18, "log_normal" within 2^-16 relative
DRAWS = ["u32", "u32", "f32", "f64", "normal", "normal", "u32", "u32", "u32", "f32", "f64", "u32", "f64",
         "log_normal", "u32", "u32"]
TOLERANCE = {"normal": (2.0 ** -18, 0.0), "log_normal": (0.0, 2.0 ** -16)}      # (absolute, relative)


def _want() -> np.ndarray:
    rows = [line.split(": ")[1].split() for line in H200.strip().splitlines()]
    assert all(len(r) == N_DRAWS for r in rows) and len(DRAWS) == N_DRAWS
    return np.array([[int(v, 16) for v in r] for r in rows], dtype=np.uint64)


def _cases(device):
    yield "draws", None, ()


@pytest.mark.parametrize("device,case", device_params(_cases))
def test_curand_draws_match_an_h200(device, case, tmp_path_factory):
    require(device)
    want = _want()
    hsaco = code_object(SOURCE, "curand_values.cu", device.arch, str(tmp_path_factory.getbasetemp()))
    out = np.zeros(want.size, dtype=np.uint64)
    got = np.asarray(device.launch(hsaco, "draws", [np.uint64(SEED), out], grid=(1, 1, 1),
                                   block=(len(want), 1, 1))[1]).reshape(want.shape)
    wrong = []
    for t in range(len(want)):
        for j, kind in enumerate(DRAWS):
            g, w = int(got[t, j]), int(want[t, j])
            if kind in TOLERANCE:
                gf, wf = (float(np.uint32(v).view(np.float32)) for v in (g, w))
                absolute, relative = TOLERANCE[kind]
                close = abs(gf - wf) <= absolute + relative * abs(wf)
            else:
                bits = 0xffffffffffffffff if kind == "f64" else 0xffffffff
                close = g & bits == w & bits
            if not close:
                wrong.append(f"thread {t} draw {j}: {g:x}, H200 {w:x}")
    assert not wrong, f"{device.arch}: {len(wrong)} differ: " + "; ".join(wrong[:30])
