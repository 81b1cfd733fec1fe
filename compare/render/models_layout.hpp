// What every format of `gpubench models` shows, laid out once (issue 39): the purchase answer,
// the figures with models as columns, each model's facts (memory in GiB, as `show`), and the
// words of each cell. render_models.cpp writes them as text, Markdown, JSON and CSV,
// render_models_html.cpp as HTML.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "compare/models/models.hpp"

namespace gpubench::compare::models_layout {

std::string num(double v);                              // 4 significant digits, "—" if unknown
std::string figure_text(const Figure& f, double conf);  // "1234 [1200, 1260]", "*": one unit
std::string ratio_cell(const std::optional<Ratio>& r, double conf);  // "1.09x [1.079, 1.094]"
std::vector<std::string> name_lines(const std::string& prefix, const std::string& name,
                                    std::size_t width);
std::string outlier_text(const FleetOutlier& o);
std::string row_title(const ModelRow& r);  // "NVIDIA H100 (8 GPUs/node, interconnect NVLink)"
std::vector<std::string> short_names(const ModelsTable& t);  // per row: "H100 80GB HBM3"
std::string currency_of(const ModelsTable& t);               // the prices' currency, or "price"

// The purchase answer: one sentence per headline figure the reference and another model both
// have, "BF16: H100 21.0% more per USD [20.6%, 21.4%]; H200 6.0% faster [5.1%, 6.9%]; ...", as
// (sentence head, clauses, benchmark note).
struct Answer {
  std::string head;   // "BF16"
  std::string label;  // "dense BF16 TFLOP/s"
  std::vector<std::string> clauses;
  std::string benchmarks;  // "gemm/..." or "H100: gemm/...; H200: gemm/..."
};
std::vector<Answer> purchase_answer(const ModelsTable& t);
std::vector<std::string> sentence_lines(const std::string& indent, const std::string& head,
                                        const std::vector<std::string>& clauses, std::size_t width);
std::string power_words(const ModelsTable& t);  // where per W came from, or how to get it
std::string memory_text(const ModelRow& r);     // "80 GiB"
std::string price_text(const ModelRow& r);      // "33000 USD (30000 EUR at 1.100)"
std::string facts_line(const ModelRow& r);
std::string composite_note(const ModelRow& r);  // "" unless a weights pattern missed this model
// The figures with models as columns: (label, one cell per model), the first row the header;
// a sub-row's label starts with two blanks ("  per W").
std::vector<std::vector<std::string>> grid_rows(const ModelsTable& t);
// Each model's facts as rows of the same columns: configuration, pooled, memory, TDP, price.
std::vector<std::vector<std::string>> fact_rows(const ModelsTable& t);

}  // namespace gpubench::compare::models_layout

namespace gpubench::compare {
// The HTML page (render_models_html.cpp).
void render_models_html(std::ostream& out, const ModelsTable& t);
}  // namespace gpubench::compare
