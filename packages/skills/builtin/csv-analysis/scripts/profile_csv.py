"""Profile a CSV file with pandas and print the profile as Markdown (or JSON with --json).

Usage: python3 profile_csv.py DATA.csv [--sep SEP] [--json]
"""

import argparse
import json

import pandas


def profile(frame):
    columns = []
    for name in frame.columns:
        series = frame[name]
        column = {
            "name": str(name),
            "type": str(series.dtype),
            "missing": int(series.isna().sum()),
            "distinct": int(series.nunique(dropna=True)),
        }
        if pandas.api.types.is_numeric_dtype(series):
            stats = series.describe()
            column["summary"] = {key: float(stats[key]) for key in ["mean", "std", "min", "50%", "max"] if key in stats}
        else:
            column["top"] = {str(key): int(value) for key, value in series.value_counts().head(5).items()}
        columns.append(column)
    correlations = []
    numeric = frame.select_dtypes("number")
    if numeric.shape[1] >= 2:
        matrix = numeric.corr()
        for left_index, left in enumerate(matrix.columns):
            for right in matrix.columns[left_index + 1 :]:
                value = matrix.loc[left, right]
                if pandas.notna(value):
                    correlations.append({"columns": [str(left), str(right)], "r": round(float(value), 3)})
        correlations.sort(key=lambda item: -abs(item["r"]))
    return {"rows": int(frame.shape[0]), "columns": columns, "correlations": correlations[:10]}


def as_markdown(result):
    lines = [f"# Profile: {result['rows']} rows, {len(result['columns'])} columns", ""]
    lines += ["| column | type | missing | distinct | summary |", "|---|---|---|---|---|"]
    for column in result["columns"]:
        if "summary" in column:
            detail = ", ".join(f"{key}={value:.4g}" for key, value in column["summary"].items())
        else:
            detail = ", ".join(f"{key} ({count})" for key, count in column["top"].items())
        lines.append(f"| {column['name']} | {column['type']} | {column['missing']} | {column['distinct']} | {detail} |")
    if result["correlations"]:
        lines += ["", "Strongest correlations:"]
        lines += [f"- {item['columns'][0]} ~ {item['columns'][1]}: r = {item['r']}" for item in result["correlations"]]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("path")
    parser.add_argument("--sep", default=None)
    parser.add_argument("--json", action="store_true")
    arguments = parser.parse_args()
    frame = pandas.read_csv(arguments.path, sep=arguments.sep, engine="python")
    result = profile(frame)
    print(json.dumps(result, indent=2) if arguments.json else as_markdown(result))


if __name__ == "__main__":
    main()
