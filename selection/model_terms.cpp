#include "selection/model_terms.hpp"

#include <algorithm>
#include <cmath>

namespace jitsparse::model_detail {

double bandwidth_share(double compulsory_bytes, long long l2_bytes) {
  if (l2_bytes <= 0) return 1;
  const double against_l2 = std::log2(std::max(compulsory_bytes, 1.0) / static_cast<double>(l2_bytes));
  return std::clamp((against_l2 + 2.0) / 2.0, 0.0, 1.0);
}

double narrow_log_ratio(const MatrixFeatures& f, double compulsory_bytes, long long l2_bytes, int components,
                        int vector_components, Precision p) {
  if (f.nnz <= 0 || l2_bytes <= 0) return 0;
  const double s = scalar_bytes(p), vectors = (f.rows + f.cols) * vector_components * s;
  const double nnz = static_cast<double>(f.nnz), rows = static_cast<double>(f.rows);
  const double bytes =
      std::log((nnz * (components * s + 2) + 4 * rows + vectors) / (nnz * (components * s + 4) + 4 * rows + vectors));
  return bytes * 0.6 * bandwidth_share(compulsory_bytes, l2_bytes);
}

double traffic_factor(const VariantShape& v, const MatrixFeatures& f, int components, int vector_components, Precision p) {
  if (f.nnz <= 0 || f.mean_row <= 0) return 0;
  double padding = 1;
  if (v.padding == VariantShape::Padding::ell)
    padding = static_cast<double>(f.max_row) / f.mean_row;
  else if (v.padding == VariantShape::Padding::sell)
    padding = f.sell_padding;
  else if (v.padding == VariantShape::Padding::sorted_sell)
    padding = f.sorted_sell_padding;
  if (padding <= 0) return 0;
  const double s = scalar_bytes(p), entry = components * s + 4, vectors = (f.rows + f.cols) * vector_components * s;
  return (padding * f.nnz * entry + vectors) / (f.nnz * entry + vectors);
}

double sorted_sell_overhead(const MatrixFeatures& f, int components, int vector_components, Precision p) {
  if (f.nnz <= 0) return 0;
  const double s = scalar_bytes(p), vectors = (f.rows + f.cols) * vector_components * s;
  return f.rows * (4 + vector_components * s) / (f.nnz * (components * s + 4) + vectors);
}

double padding_log_ratio(double here_factor, double here_bytes, double there_factor, double there_bytes,
                         long long l2_bytes, double gain_limit) {
  if (here_factor <= 0 || there_factor <= 0) return 0;
  auto share = [&](double bytes) { return std::max(kLatencyPaddingShare, bandwidth_share(bytes, l2_bytes)); };
  return std::max(-gain_limit, share(here_bytes) * std::log(here_factor) - share(there_bytes) * std::log(there_factor));
}

double critical_path_us(const VariantShape& v, const MatrixFeatures& f) {
  if (!v.row_family) return 0;
  return static_cast<double>(f.max_row) / v.tpr * kSerialStepUs;
}

double chain_log_delta(const VariantShape& v, const MatrixFeatures& neighbour, const MatrixFeatures& query,
                       double neighbour_us) {
  if (!v.row_family || v.tpr <= 0 || neighbour_us <= 0) return 0;
  auto steps = [&](const MatrixFeatures& f) { return std::ceil(static_cast<double>(f.max_row) / v.tpr); };
  const double here_us = std::max(0.5 * neighbour_us, neighbour_us + kChainStepUs * (steps(query) - steps(neighbour)));
  return std::log(here_us / neighbour_us);
}

double floor_latency_us(const VariantShape& v, const MatrixFeatures& query) {
  if (!v.row_family || v.tpr <= 0) return 0;
  const double pointer = v.padding == VariantShape::Padding::ell ? 0.0 : kPointerLoadUs;
  return pointer + kChainStepUs * std::ceil(static_cast<double>(query.max_row) / v.tpr);
}

double parallelism_log_ratio(const VariantShape& v, const MatrixFeatures& neighbour, const MatrixFeatures& query,
                             int components) {
  auto at = [&](int tpr) {
    const double there = std::min(1.0, static_cast<double>(neighbour.rows) * tpr / kParallelThreads);
    const double here = std::min(1.0, static_cast<double>(query.rows) * tpr / kParallelThreads);
    return there > 0 && here > 0 ? kParallelExponent * std::log(there / here) : 0.0;
  };
  const double too_few = at(v.tpr) - std::max(0.0, at(kWidestThreadsPerRow));
  if (components > kOverParallelComponents) return too_few;
  // log of the threads beyond kOverParallelThreads that tpr adds over one thread a row
  auto surplus = [&](const MatrixFeatures& f) {
    auto over = [&](int tpr) { return std::log(std::max(1.0, static_cast<double>(f.rows) * tpr / kOverParallelThreads)); };
    return kParallelExponent * (over(v.tpr) - over(1));
  };
  return too_few + std::max(0.0, surplus(query) - surplus(neighbour));
}

}  // namespace jitsparse::model_detail
