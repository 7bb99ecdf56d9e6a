// The evaluation page: per holdout, the summary (share within 10% and 3% of the exhaustive best, geometric
// mean, worst, GPU time of quick tuning) and a row per matrix with every predictor's time over the best.
#include <cctype>
#include <string>

#include "core/file_util.hpp"
#include "tuner/html_util.hpp"
#include "tuner/evaluate.hpp"
#include "tuner/report.hpp"

namespace jitsparse {

using namespace report_detail;

namespace {

const char* const kPredictors[][2] = {{"model", "model"},
                                      {"quick", "quick tuning"},
                                      {"rule_of_thumb", "rule of thumb"},
                                      {"nearest_winner", "nearest matrix's winner"}};

std::string relative_cell(const json& p) {
  if (auto r = number(p, "relative")) return td_num(fixed(*r, 3) + "x");
  return td(or_na(raw_text(p, "status")), "na");
}

// Quick tuning: its time over the best and how many candidates it measured.
std::string quick_cell(const json& row) {
  const json& q = object_of(row, "quick");
  const std::string k = " (" + fmt_count(number(row, "quick_k")) + ")";
  if (auto r = number(q, "relative")) return td_num(fixed(*r, 3) + "x" + k);
  return td(or_na(raw_text(q, "status")) + k, "na");
}

std::string summary_table(const json& s) {
  std::string h = "<table>" + header_row({"predictor", "timed", "within 10%", "within 3%", "geometric mean", "worst"});
  for (const auto& [key, label] : kPredictors) {
    const json& p = object_of(s, key);
    h += "<tr>" + td(label) + td_num(fmt_count(number(p, "timed"))) +
         td_num(fmt_percent(number(p, "share_within_10_percent"))) +
         td_num(fmt_percent(number(p, "share_within_3_percent"))) +
         td_num(number(p, "geomean_relative") ? fixed(*number(p, "geomean_relative"), 3) + "x" : kNa) +
         td_num(number(p, "worst_relative") ? fixed(*number(p, "worst_relative"), 3) + "x" : kNa) + "</tr>";
  }
  return h + "</table>";
}

}  // namespace

std::string evaluate_report_html(const nlohmann::json& doc) {
  std::string h = page_open("jitsparse evaluate") + "<h1>Selection for matrices never tuned</h1>";
  h += facts({{"GPU", text(object_of(doc, "gpu"), "name")}, {"database", text(doc, "database")},
              {"neighbours", fmt_count(number(doc, "neighbours"))}, {"operation", text(doc, "op")}});
  h += "<p>Each fully searched matrix is hidden in turn (with its whole family for the family holdout); the model "
       "predicts from the rest. A predictor's figure is its variant's time on the hidden matrix over the best "
       "variant the search (and this evaluation) timed there. Quick tuning measures the model's candidates in "
       "rounds (the first of 16 layout pairs, the model's schedules of the 2 fastest pairs, then the search's "
       "schedule grid around the fastest) and keeps the fastest; k counts what it measured, and its GPU time is "
       "estimated as (k + 9) search measurements of the matrix (9: re-timing three finalists).</p>";
  for (const auto& run : array_of(doc, "holdouts")) {
    const json& s = object_of(run, "summary");
    std::string title = holdout_title(text(run, "holdout"));
    title[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(title[0])));
    h += "<h2>" + title + "</h2>" + summary_table(s);
    h += facts({{"quick tuning's GPU time", fmt_percent(number(s, "quick_share_of_full_gpu_time")) + " of the full search"},
                {"model slower than cuSPARSE where a tuned variant is faster",
                 fmt_count(number(s, "model_slower_than_cusparse_where_tuned_is_faster")) + " of " +
                     fmt_count(number(s, "cusparse_compared"))}});
    h += "<table>" + header_row({"matrix", "prec", "best variant", "best", "model", "confidence", "quick (k)",
                                 "rule of thumb", "nearest winner", "cuSPARSE best"});
    for (const auto& r : array_of(run, "rows")) {
      h += "<tr>" + td(text(r, "matrix")) + td(text(r, "precision")) + td(mono(text(r, "best_variant"))) +
           td_num(fmt_time(number(r, "best_us"))) + relative_cell(object_of(r, "model")) +
           td_num(number(r, "confidence") ? fixed(*number(r, "confidence"), 2) : kNa) +
           quick_cell(r) +
           relative_cell(object_of(r, "rule_of_thumb")) + relative_cell(object_of(r, "nearest_winner")) +
           td_num(fmt_time(number(r, "cusparse_us"))) + "</tr>";
    }
    h += "</table>";
  }
  return h + page_close();
}

void write_evaluate_report_html(const nlohmann::json& doc, const std::string& path) {
  write_file_atomically(path, evaluate_report_html(doc));
}

}  // namespace jitsparse
