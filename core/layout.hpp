#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/host_matrix.hpp"
#include "core/precision.hpp"

namespace jitsparse {

// Storage layouts (DESIGN.md). The exact arrays are what the device kernels read, so this comment is
// the contract between core/packing.cpp and templates/jitsparse/layouts.cuh.
//
// outer csr:  row_ptr[rows + 1], positions row_ptr[r] .. row_ptr[r+1]-1 in column order.
// outer sell-K (K = 16 or 32): rows padded to rows_padded = a multiple of K; slice s holds rows
//             sK .. sK+K-1, width w_s = longest row of the slice; slice_ptr[s] = first position of the
//             slice (slice_ptr[num_slices] = stored_entries); element k of row r is at position
//             slice_ptr[r/K] + k*K + r%K (column-major inside the slice); row_len[r] = entries of row r
//             (0 for padded rows). Positions with k >= row_len[r] are padding: never read by a kernel.
// outer sell-K-sigma (SELL-C-sigma, Kreutzer et al. 2014; name sell<K>s<sigma>, sigma a multiple of K):
//             sell-K of the rows taken in a sorted order: inside each window of sigma rows (rows
//             w*sigma .. w*sigma+sigma-1), longest row first, ties in row order (stable). Stored row i holds
//             row row_perm[i] of the matrix (row_perm[rows_padded], padded rows: -1), and its result goes to
//             y[row_perm[i]]. Everything else (slice_ptr, row_len, positions) is that of sell-K of the
//             sorted rows, so a window of similar lengths pads little where row lengths vary.
// outer hola: the csr arrays, read by the Hola-style kernel (templates/jitsparse/hola.cuh), which balances
//             a fixed number of entries per block and per thread and needs no other preprocessing.
// outer hisparse (d = slice, X = coo): the HiSparse tree of core/hisparse.hpp in one byte pool (`pool`),
//             leaves COO1/COOX/dense with entries aos (inner is always aos), plus static work lists per
//             operation (`hi[0]` for A x, `hi[1]` for A^T x and A^H x), built by core/hisparse_pack.cpp:
//             a strip is d consecutive rows of op(A) (a leaf row for A x, a leaf column for A^T x);
//             strip s owns leaves strip_begin[s] .. strip_begin[s+1]-1 (leaf_ptr: pool pointer with the
//             node type in its low 4 bits; leaf_block: the leaf's block index along the other axis, so
//             its x elements start at leaf_block * d), in order of that index. strip_order lists every
//             strip, those with more entries first by power-of-two class (strip_class, host only),
//             natural order inside a class: the strips above any power-of-two threshold are a prefix.
//             col_idx and values stay empty; rows_padded = rows.
// outer ell:  ELLPACK-R: one slice of all rows, rows_padded = multiple of 32, width = longest row,
//             element k of row r at position k*rows_padded + r; row_len as for sell; slice_ptr = {0, total}.
// inner aos:  component i of the entry at position p is values[p*C + i].
// inner soa:  values[i*value_stride + p]; value_stride = stored_entries rounded up to a multiple of 4
//             (keeps each component array 16-byte aligned).
// col_idx[p]: column of position p (padding: 0). Padding values are quiet NaN, so a kernel that
//             multiplies padding gives NaN and fails verification.
// narrow (name suffix -d16; csr, ell and sell only): col_delta[p] (int16) = column - matrix row of the
//             stored row (row_perm[r] for a sorted sell, else r) instead of col_idx, which stays empty:
//             2 bytes of index per entry instead of 4. Only for matrices whose every |column - row| is
//             at most 32767 (narrow_columns_fit); pack throws otherwise. Padding: 0.
// vector aos: component i of element j at x[j*V + i].
// vector soa: x[i*vector_stride(n) + j], vector_stride(n) = n rounded up to a multiple of 32
//             (pack_vector fills the tail j >= n with quiet NaN: never read).
// y is written for rows r < rows only; padded rows (r >= rows) have no y element in the aos layout.
// Limits: positions (stored_entries) and rows_padded must fit in int32 (pack throws otherwise); value
//         and vector indices (p*C + i, i*value_stride + p, i*vector_stride + j) may need 64 bits.
enum class OuterLayout { csr, ell, sell, hola, hisparse };
enum class InnerLayout { aos, soa };
enum class VectorLayout { aos, soa };

struct Layout {
  OuterLayout outer = OuterLayout::csr;
  int slice = 0;  // sell: 16 or 32; hisparse: d (16..256); 0 otherwise
  int coo = 0;    // hisparse: X of the COOX leaves (1, 2 or 4); 0 otherwise
  int sigma = 0;  // sell: rows sorted by length inside windows of sigma rows (SELL-C-sigma); 0: unsorted
  InnerLayout inner = InnerLayout::aos;
  VectorLayout vector = VectorLayout::aos;
  bool narrow = false;  // 16-bit column offsets (col_delta) instead of 32-bit columns; csr, ell, sell
  // hisparse: CSR leaves where they are smaller than COO ones (core/hisparse.hpp), "r" after the outer
  // name (hisparse64c2r): the smallest pool, but read row by row, 0.5-1.4x the time of COO leaves (H100)
  bool row_leaves = false;

  // Canonical name: "csr-aos-aos", "ell-soa-aos", "sell32-soa-soa", "sell32s256-aos-aos",
  // "hisparse64c2-aos-aos", "hisparse64c2r-aos-aos" (CSR leaves), "sell32-aos-aos-d16" (narrow). parse()
  // also takes "sell-32-...".
  std::string name() const;
  std::string outer_name() const;  // "csr", "ell", "sell16", "sell32", "sell32s256", "hola", "hisparse64c2"
  static Layout parse(const std::string& s);  // throws InvalidArgument
  bool operator==(const Layout& o) const {
    return outer == o.outer && slice == o.slice && coo == o.coo && sigma == o.sigma && inner == o.inner &&
           vector == o.vector && narrow == o.narrow && row_leaves == o.row_leaves;
  }
  bool operator!=(const Layout& o) const { return !(*this == o); }
  bool uses_row_ptr() const { return outer == OuterLayout::csr || outer == OuterLayout::hola; }  // csr arrays
  bool sorted() const { return outer == OuterLayout::sell && sigma > 0; }  // stored rows go through row_perm
  // The matrix arrays do not depend on the vector layout: one packed matrix serves both vector layouts.
  bool same_matrix_arrays(const Layout& o) const {
    return outer == o.outer && slice == o.slice && coo == o.coo && sigma == o.sigma && inner == o.inner &&
           narrow == o.narrow && row_leaves == o.row_leaves;
  }
  // Whether the outer layout has a narrow form (the row kernels': csr, ell, sell).
  bool can_be_narrow() const { return outer == OuterLayout::csr || outer == OuterLayout::ell || outer == OuterLayout::sell; }
};

// Largest |column - row| of a narrow layout's offsets (int16).
constexpr int64_t kNarrowOffsetLimit = 32767;
// Whether every entry's |column - row| is at most kNarrowOffsetLimit: the narrow layouts can hold the
// matrix (and its transpose, whose offsets are the same up to sign).
bool narrow_columns_fit(const HostMatrix& a);
// The same for P A P^T (perm[old] = new, core/permutation.hpp) without building it.
bool narrow_columns_fit(const HostMatrix& a, const std::vector<int32_t>& perm);

// Window sizes a sorted sell layout accepts: multiples of its K from K to 2^20 that are powers of two.
bool valid_sell_sigma(int slice, int sigma);

// Every layout: {csr, ell, sell16, sell32, sell32s256, hola} x {aos, soa} x {aos, soa}. Hola layouts run
// with hola schedules only (generator/variant.hpp); row_layouts() leaves them out. HiSparse layouts are
// listed apart (hisparse_layouts): 60 of them, each a tree to build, so a search picks a few. Other
// windows of the sorted sell (sell16s64, sell32s4096, ...) are valid names but not listed.
std::vector<Layout> all_layouts();
// csr, ell, sell16, sell32, sell32s256: the row-per-thread-group kernel family
std::vector<Layout> row_layouts();
constexpr int kDefaultSellSigma = 256;  // the window of the listed sorted sell layout
// hisparse{16,32,64,128,256}c{1,2,4}[r]-aos-{aos,soa}
std::vector<Layout> hisparse_layouts();

int64_t vector_stride(int64_t n);  // soa vector stride, see above

// A matrix packed into one layout and precision: the host image of the device arrays.
struct PackedMatrix {
  Layout layout;
  Precision precision = Precision::f64;
  int components = 1;         // C
  int vector_components = 1;  // V
  int32_t rows = 0, cols = 0;
  int32_t rows_padded = 0;    // csr, hola: rows
  int32_t num_slices = 0;     // sell: rows_padded / K; ell: 1; csr: 0
  int64_t stored_entries = 0; // positions including padding (csr: nnz)
  int64_t value_stride = 0;   // soa: see above; aos: stored_entries
  std::vector<int32_t> row_ptr;    // csr and hola only
  std::vector<int32_t> slice_ptr;  // sell/ell only
  std::vector<int32_t> row_len;    // sell/ell only, rows_padded
  std::vector<int32_t> row_perm;   // sorted sell only, rows_padded: the matrix row of each stored row
  std::vector<int32_t> col_idx;    // stored_entries (empty when narrow)
  std::vector<int16_t> col_delta;  // narrow only: stored_entries column offsets (see above)
  std::vector<unsigned char> values;  // float or double, laid out by `inner`

  // hisparse only (see above); hi[0]: strips of A x, hi[1]: strips of A^T x and A^H x.
  struct HiStrips {
    std::vector<int32_t> strip_begin;  // strips + 1
    std::vector<int32_t> strip_order;  // strips
    std::vector<uint64_t> leaf_ptr;    // leaves
    std::vector<int32_t> leaf_block;   // leaves
    std::vector<int32_t> at_least;     // host only: at_least[k] = strips with at least 2^k entries
                                       // (k = 0..31): the first at_least[k] of strip_order
    int64_t bytes() const;             // device bytes (at_least is not uploaded)
  };
  std::vector<uint8_t> pool;
  HiStrips hi[2];

  // Bytes of all arrays above: the matrix's device footprint.
  int64_t bytes() const;
  int64_t padding_entries() const { return stored_entries - nnz; }
  int64_t nnz = 0;
};

// The stored order of a sorted sell layout (see above): perm[i] = matrix row of stored row i, for the
// rows_padded stored rows (-1 for padding). Identity for every other layout (size rows).
std::vector<int32_t> stored_row_order(const HostMatrix& a, const Layout& layout);

// Bytes a layout would take, without building it (to enforce a memory cap before packing).
int64_t packed_bytes(const HostMatrix& a, const Layout& layout, Precision precision);

// Pack the master copy. Throws InvalidArgument when positions would overflow 32-bit indices.
PackedMatrix pack(const HostMatrix& a, const Layout& layout, Precision precision);
// Refresh values of a packed matrix from a matrix with the same pattern (throws if the pattern differs).
void repack_values(PackedMatrix& packed, const HostMatrix& a);

// Vectors: logical form is aos doubles (n * V); packed form is bytes in the given layout and precision.
std::vector<unsigned char> pack_vector(const std::vector<double>& aos, int vector_components,
                                       VectorLayout layout, Precision precision);
std::vector<double> unpack_vector(const std::vector<unsigned char>& packed, int64_t n, int vector_components,
                                  VectorLayout layout, Precision precision);
int64_t packed_vector_bytes(int64_t n, int vector_components, VectorLayout layout, Precision precision);

// y = alpha*A*x + beta*y computed by reading the packed arrays directly (what a kernel does), in double
// arithmetic on the packed (possibly float) values. x and y are packed vectors. Proves the packing.
void spmv_packed_cpu(const PackedMatrix& a, const EntryType& entry, const std::vector<unsigned char>& x,
                     std::vector<unsigned char>& y, double alpha, double beta);

}  // namespace jitsparse
