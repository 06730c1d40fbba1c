# Helpers of the sixth experiment's rules.

SIXTH = config["experiments"].get("sixth", {})
SIXTH_RUNS = [f"results/runs/sixth/synthetic/{variant}.parquet" for variant in SIXTH.get("variants", {})]
