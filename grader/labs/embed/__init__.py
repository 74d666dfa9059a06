"""The lab "from the embedding table to the logits": the student's ``embed.py``.

Its contract, the oracle (independent of the reference solution), the case
generators, the checks and hints, the rules the student's texts state, the
report files' checks and step 8, which measures the report from the code.
"""
