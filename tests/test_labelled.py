"""decoders.labelled: report items' job parameters print as labels, and hash, pickle and read as their values."""

import copy
import json
import pickle

import pytest
from snakemake.logging import format_dict

from decoders.labelled import LabelledDict, LabelledStr, labelled


def test_a_labelled_dict_prints_its_label_and_is_its_value_elsewhere() -> None:
    settings = {"datasets": ["wsj"], "harness": {"repeats": 5}}
    shown = labelled(settings, "the configuration's experiments.chains")
    assert isinstance(shown, dict) and shown == settings
    assert f"{shown}" == "the configuration's experiments.chains"
    # what Snakemake hashes to decide a rerun (repr) and what JSON and str() give are the plain dict's
    assert repr(shown) == repr(settings) and str(shown) == str(settings)
    assert json.dumps(shown, sort_keys=True) == json.dumps(settings, sort_keys=True)
    for copied in (pickle.loads(pickle.dumps(shown)), copy.deepcopy(shown)):
        assert type(copied) is LabelledDict and copied == settings and f"{copied}" == shown.label
    assert copy.deepcopy(shown)["harness"] is not settings["harness"]


def test_a_labelled_str_prints_its_label_and_is_its_value_elsewhere() -> None:
    digest = "0123456789abcdef" * 4
    shown = labelled(digest, f"sha256 {digest[:12]}")
    assert shown == digest and str(shown) == digest and type(str(shown)) is str
    assert repr(shown) == repr(digest) and hash(shown) == hash(digest)
    assert f"{shown}" == "sha256 0123456789ab" and f"{shown:>20}" == " sha256 0123456789ab"
    copied = pickle.loads(pickle.dumps(shown))
    assert type(copied) is LabelledStr and copied == digest and f"{copied}" == shown.label


def test_the_reports_job_panel_prints_the_labels() -> None:
    """Snakemake's report formats a result's job parameters with logging.format_dict: the labels, not the values."""
    params = {
        "settings": labelled({"runs": ["viterbi", "cg"] * 50}, "the configuration's experiments.chains"),
        "seed": 13,
        "code": labelled("f" * 64, "sha256 ffffffffffff"),
    }
    shown = format_dict(params)
    assert shown == "settings=the configuration's experiments.chains, seed=13, code=sha256 ffffffffffff"
    assert "viterbi" not in shown and "f" * 13 not in shown


@pytest.mark.parametrize(
    ("value", "label", "error"),
    [({}, "", ValueError), ("x", None, ValueError), (13, "seed", TypeError), (["a"], "list", TypeError)],
)
def test_bad_arguments_are_named(value, label, error) -> None:
    with pytest.raises(error, match="labelled: the"):
        labelled(value, label)
