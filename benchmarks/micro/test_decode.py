"""Decode benchmarks: webhook body (bytes) -> typed update.

Parametrized as payload x mode x contender, with the contender varying
fastest, so every contender of one group (payload + mode) is measured back
to back, which keeps the ratios inside a group fair on a noisy machine.

Modes:
* ``decode``: the decoder's entry point alone;
* ``decode+touch``: decode, then read message.text, message.chat.id and
  message.from.id, which is what nearly every handler does first.  This
  keeps lazy decoders honest: work deferred to attribute access is counted.

These are benchmarks, not tests: the only assertions are correctness checks
(a contender that decodes wrongly must not get a time), never timings.
Run them through ``python benchmarks/run.py``.
"""

import contenders
import pytest
from payloads import PAYLOADS

MODES = ("decode", "decode+touch")


def _decode_and_touch(contender: contenders.Contender):
    decode, touch = contender.decode, contender.touch

    def decode_and_touch(data):
        return touch(decode(data))

    return decode_and_touch


@pytest.mark.parametrize("contender_name", contenders.NAMES)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("payload_name", tuple(PAYLOADS))
def test_decode(benchmark, payload_name, mode, contender_name):
    available, missing = contenders.load()
    if contender_name not in available:
        pytest.skip(f"{contender_name} missing: {missing[contender_name]}")
    contender = available[contender_name]
    payload = PAYLOADS[payload_name]

    # Correctness first: a broken decoder must not report a (fast) time.
    assert contender.touch(contender.decode(payload.data)) == payload.expected

    benchmark.group = f"decode: {payload_name} {mode}"
    benchmark.extra_info.update(
        section="decode", contender=contender_name, payload=payload_name, mode=mode
    )
    if mode == "decode":
        result = benchmark(contender.decode, payload.data)
        assert contender.touch(result) == payload.expected
    else:
        result = benchmark(_decode_and_touch(contender), payload.data)
        assert result == payload.expected
