"""A sixth experiment, as a new user adds one (tests/test_new_experiment.py): pick the best item of a scored set."""
