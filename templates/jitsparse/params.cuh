// Kernel arguments of the SpMV family. Plain C++ with no CUDA dependency: host code (runtime/) fills the
// same struct and passes it to cudaLaunchKernel, so its layout must stay identical on both sides.
#pragma once

namespace jitsparse {

// y = alpha * A x + beta * y (beta == 0: y is not read). Arrays follow core/layout.hpp.
template <class T>
struct SpmvParams {
  const int* row_ptr;    // csr: rows + 1
  const int* slice_ptr;  // sell: first position of each slice
  const int* row_len;    // sell, ell: entries per row
  const int* col_idx;    // per position
  const T* values;       // per position, aos or soa
  long long value_stride;  // soa: scalars per component array
  const T* x;
  long long x_stride;    // soa vector: scalars per component array
  T* y;
  long long y_stride;
  unsigned* counters;    // dynamic schedule: {next chunk, finished blocks}, zero between launches
  T alpha;
  T beta;
  int rows;
  int ell_stride;        // ell: rows_padded
  int cols;              // columns of the stored matrix: the length of y for op t/h by atomics
  long long nnz;         // hola: stored entries
  int* block_row;        // hola: the row of each block's first entry (written by hola_prepare)
  // hisparse (core/layout.hpp): the tree's pool and the strips of this launch's operation
  const unsigned char* hs_pool;
  const int* hs_strip_begin;
  const int* hs_strip_order;
  const unsigned long long* hs_leaf_ptr;
  const int* hs_leaf_block;
  int hs_strips;      // strips of op(A)
  int hs_big_strips;  // the first hs_big_strips of hs_strip_order take a block each
  int hs_x_len;       // elements of x (bounds the cells of dense leaves)
  int hs_y_len;       // elements of y
  const int* row_perm;  // sorted sell: the matrix row of each stored row (its y element; x for op t/h)
  int ell_width;        // ell: elements per row of the padded array (stored positions / ell_stride)
  const int* y_map;     // renumbered (Variant::ordering): the caller's y element of each element of P A P^T's
                        // numbering (the inverse permutation); null: the same element
  const T* x_caller;    // renumbered hola: hola_prepare moves the caller's x into x_moved (which is x):
  T* x_moved;           // x_moved[i] = x_caller[x_map[i]], so no kernel of its own does; null: x is ready
  const int* x_map;     // the inverse permutation (y_map's, which is null where the product's y is moved back)
};

}  // namespace jitsparse
