"""Generators: Java's Random bit for bit (checked against the JVM), YABench's emission order."""

import shutil
import subprocess

import pytest

from conformance.streams.generate import JavaRandom, YABenchSpec, stream, yabench_observations

JAVA = r"""
import java.util.Random;
public class R {
  public static void main(String[] a) {
    for (long seed : new long[]{0L, 42L, 1430236906L, -7L}) {
      Random r = new Random(seed);
      StringBuilder b = new StringBuilder();
      b.append(r.nextInt()).append(' ');
      for (int bound : new int[]{1000, 100, 64, 7, 1 << 30, 1500000001}) b.append(r.nextInt(bound)).append(' ');
      System.out.println(b.toString().trim());
    }
  }
}
"""


def python_side():
    lines = []
    for seed in (0, 42, 1430236906, -7):
        r = JavaRandom(seed)
        values = [r.next_int()] + [r.next_int(b) for b in (1000, 100, 64, 7, 1 << 30, 1500000001)]
        lines.append(" ".join(map(str, values)))
    return lines


@pytest.mark.skipif(not shutil.which("javac"), reason="needs a JDK to compare with java.util.Random")
def test_java_random_matches_the_jvm(tmp_path):
    (tmp_path / "R.java").write_text(JAVA)
    subprocess.run(["javac", "R.java"], cwd=tmp_path, check=True, timeout=120)
    out = subprocess.run(["java", "-cp", str(tmp_path), "R"], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.split("\n")[:4] == python_side()


def test_java_random_known_first_value():
    # new Random(0).nextInt() is -1155484576 in every JVM (a widely quoted value)
    assert JavaRandom(0).next_int() == -1155484576


def test_yabench_emission_order_and_first_observation_at_zero():
    spec = YABenchSpec(stations=3, interval=1000, duration=2500, seed=7)
    r = JavaRandom(7)
    offsets = [r.next_int(1000) for _ in range(3)]
    order = sorted(range(3), key=lambda s: offsets[s])
    obs = list(yabench_observations(spec))
    # rounds k = 0, 1, 2 all fit (max offset < 1000, 2000 + offset ≤ 2500 only for offsets ≤ 500)
    expected_times = [offsets[s] + k * 1000 for k in range(3) for s in order if offsets[s] + k * 1000 <= 2500]
    expected_times[0] = 0
    assert [t for _, t, _ in obs] == expected_times
    assert [s for s, _, _ in obs][:3] == order
    assert all(0 <= v < 100 for _, _, v in obs)


def test_generated_stream_is_deterministic_and_has_seven_triples_per_observation():
    a = stream("yabench", stations=5, interval=1000, duration=3000, seed=1)
    b = stream("yabench", stations=5, interval=1000, duration=3000, seed=1)
    assert a == b
    assert all(len(e.triples) == 7 for e in a.elements)
    assert [e.t for e in a.elements] == sorted(e.t for e in a.elements)


@pytest.mark.parametrize("stations, seed", [(1, 1430237208), (50, 1430236906), (7, 3)])
def test_the_fast_generator_equals_the_plain_one_element_for_element(stations, seed):
    from conformance.streams.generate import stream
    from tests.reference_generator import reference_stream

    fast = stream("yabench", stations=stations, interval=1000, duration=30000, seed=seed)
    plain = reference_stream(stations, 1000, 30000, seed)
    assert len(fast) == len(plain) > 0
    assert fast.elements == plain.elements
    assert [type(x) for x in fast.elements[5].triples[0]] == [type(x) for x in plain.elements[5].triples[0]]
