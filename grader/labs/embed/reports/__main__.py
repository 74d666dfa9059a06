"""``python -m grader.labs.embed.reports``: write the quick validator of the report's JSON
again after ``schemas/report.schema.json`` changed (needs fastjsonschema)."""

from grader.labs.embed.reports import json_schema

if __name__ == "__main__":  # the grader imports every module of its package once
    json_schema.regenerate()
    print("wrote %s" % json_schema.GENERATED)
