"""Build a multi-page PDF report from a JSON description, with matplotlib only.

Usage: python3 make_report.py REPORT.json OUTPUT.pdf
"""

import json
import sys
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.backends.backend_pdf import PdfPages  # noqa: E402

PAGE = (8.27, 11.69)  # A4 in inches
WRAP = 95


def new_page(pdf, pages):
    if pages:
        pdf.savefig(pages[-1])
        plt.close(pages[-1])
    figure = plt.figure(figsize=PAGE)
    figure.text(0.5, 0.02, f"{len(pages) + 1}", ha="center", fontsize=8, color="grey")
    pages.append(figure)
    return figure


def render_text(figure, top, text):
    for paragraph in text.split("\n\n"):
        for line in textwrap.wrap(paragraph.strip(), WRAP) or [""]:
            figure.text(0.08, top, line, fontsize=10, va="top")
            top -= 0.022
        top -= 0.012
    return top


def render_table(figure, top, table):
    rows = table.get("rows", [])
    height = min(0.03 * (len(rows) + 1), top - 0.08)
    axes = figure.add_axes([0.08, top - height, 0.84, height])
    axes.axis("off")
    grid = axes.table(cellText=[[str(cell) for cell in row] for row in rows], colLabels=table.get("columns"), loc="upper center")
    grid.auto_set_font_size(False)
    grid.set_fontsize(9)
    return top - height - 0.03


def render_chart(figure, top, chart):
    height = min(0.3, top - 0.08)
    axes = figure.add_axes([0.12, top - height, 0.78, height - 0.03])
    kind = chart.get("kind", "line")
    x, y = chart.get("x", []), chart.get("y", [])
    if kind == "bar":
        axes.bar([str(value) for value in x], y)
    elif kind == "scatter":
        axes.scatter(x, y, s=12)
    else:
        axes.plot(x, y, marker="o")
    axes.set_xlabel(chart.get("xlabel", ""))
    axes.set_ylabel(chart.get("ylabel", ""))
    axes.grid(alpha=0.3)
    return top - height - 0.04


def main(source, target):
    with open(source, encoding="utf-8") as handle:
        report = json.load(handle)
    pages = []
    with PdfPages(target) as pdf:
        figure = new_page(pdf, pages)
        figure.text(0.08, 0.93, report.get("title", "Report"), fontsize=20, weight="bold", va="top")
        top = 0.88
        if report.get("subtitle"):
            figure.text(0.08, top, report["subtitle"], fontsize=12, color="dimgrey", va="top")
            top -= 0.05
        for section in report.get("sections", []):
            if top < 0.3:
                figure = new_page(pdf, pages)
                top = 0.93
            figure.text(0.08, top, section.get("heading", ""), fontsize=14, weight="bold", va="top")
            top -= 0.04
            if "text" in section:
                top = render_text(figure, top, section["text"])
            if "table" in section:
                top = render_table(figure, top, section["table"])
            if "chart" in section:
                top = render_chart(figure, top, section["chart"])
        pdf.savefig(pages[-1])
        plt.close(pages[-1])
    print(f"wrote {target} ({len(pages)} page(s))")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
