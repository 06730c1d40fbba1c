"""A decoder plugged into the `chains` experiment from outside the package, as a user adding their own would.

The decode workflow test names this module in a variant's `module:`. Its decoder gives Viterbi's certified answer
(the chains experiment's checks apply to it as to any decoder of the experiment), and overruns the time limit on
sentences of ``sleep_tokens`` tokens, without looking at the deadline.
"""

from __future__ import annotations

import time

from decoders.chains.decoders import decode_viterbi
from decoders.chains.instance import ChainInstance
from decoders.harness.protocol import Solution, register


@register("chains", "toy-viterbi")
def toy_viterbi(
    instance: ChainInstance, *, deadline: float | None = None, sleep_tokens: int = -1
) -> Solution:
    if instance.n_tokens == sleep_tokens:
        time.sleep(60.0)
    return decode_viterbi(instance)
