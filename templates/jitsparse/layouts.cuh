// Storage layouts (the exact contract is the comment in core/layout.hpp).
// Outer layouts give, for a stored row, the position of its first element and the stride between
// elements (element k of row r sits at begin + k * stride, for k < len), the matrix row it holds
// (matrix_row: the y element of A x, the x element of A^T x by atomics), and the column of a position
// (column_base once per row, then column per element).
#pragma once
#include "jitsparse/load.cuh"
#include "jitsparse/params.cuh"

namespace jitsparse {

// 32-bit columns: col_idx[pos].
struct WideColumns {
  static constexpr bool kLoadsAhead = false;  // see Ell
  static constexpr bool kRowPermuted = false;  // see SellSorted
  template <class T>
  __device__ __forceinline__ static int column_base(const SpmvParams<T>&, int) { return 0; }
  template <class L, class T>
  __device__ __forceinline__ static int column(const SpmvParams<T>& p, int pos, int) { return L::load(p.col_idx + pos); }
};

// Narrow form of an outer layout (name suffix -d16): col_idx holds int16 offsets from the stored row's
// matrix row, so a row reads 2 bytes of index per element instead of 4.
template <class Outer>
struct Narrow : Outer {
  template <class T>
  __device__ __forceinline__ static int column_base(const SpmvParams<T>& p, int r) { return Outer::matrix_row(p, r); }
  template <class L, class T>
  __device__ __forceinline__ static int column(const SpmvParams<T>& p, int pos, int base) {
    return base + L::load(reinterpret_cast<const short*>(p.col_idx) + pos);
  }
};

struct Csr : WideColumns {
  template <class L, class T>
  __device__ __forceinline__ static void row(const SpmvParams<T>& p, int r, int& begin, int& len, int& stride) {
    begin = L::load(p.row_ptr + r);
    len = L::load(p.row_ptr + r + 1) - begin;
    stride = 1;
  }
  template <class T>
  __device__ __forceinline__ static int matrix_row(const SpmvParams<T>&, int r) { return r; }
};

// Sliced ELLPACK with K rows per slice, column-major inside the slice.
template <int K>
struct Sell : WideColumns {
  template <class L, class T>
  __device__ __forceinline__ static void row(const SpmvParams<T>& p, int r, int& begin, int& len, int& stride) {
    begin = L::load(p.slice_ptr + r / K) + r % K;
    len = L::load(p.row_len + r);
    stride = K;
  }
  template <class T>
  __device__ __forceinline__ static int matrix_row(const SpmvParams<T>&, int r) { return r; }
};

// SELL-C-sigma: Sliced ELLPACK of the rows sorted by length inside windows; row_perm says which row of
// the matrix a stored row is.
template <int K>
struct SellSorted : Sell<K> {
  static constexpr bool kRowPermuted = true;  // matrix_row is a load (SpmvKernel asks for it first)
  template <class T>
  __device__ __forceinline__ static int matrix_row(const SpmvParams<T>& p, int r) { return load_matrix(p.row_perm + r); }
};

// ELLPACK-R: one slice of rows_padded rows. Element k < ell_width of any row is inside the array, so the
// row kernel loads a row's first elements before its length (SpmvKernel::mac_ahead).
struct Ell : WideColumns {
#ifdef JITSPARSE_NO_ELL_AHEAD
  static constexpr bool kLoadsAhead = false;
#else
  static constexpr bool kLoadsAhead = true;
#endif
  template <class T>
  __device__ __forceinline__ static int position(const SpmvParams<T>& p, int r, int k) { return r + k * p.ell_stride; }
  template <class L, class T>
  __device__ __forceinline__ static int length(const SpmvParams<T>& p, int r) { return L::load(p.row_len + r); }
  template <class L, class T>
  __device__ __forceinline__ static void row(const SpmvParams<T>& p, int r, int& begin, int& len, int& stride) {
    begin = r;
    len = L::load(p.row_len + r);
    stride = p.ell_stride;
  }
  template <class T>
  __device__ __forceinline__ static int matrix_row(const SpmvParams<T>&, int r) { return r; }
};

// Entry components next to each other: one wide load per entry.
struct InnerAos {
  template <class E, class L, class T>
  __device__ __forceinline__ static void load(const SpmvParams<T>& p, int pos, typename E::Matrix& a) {
    T s[E::C];
    load_contiguous<T, E::C, L>(p.values + static_cast<long long>(pos) * E::C, s);
    E::set(a, s);
  }
};

// One array per component: neighbouring threads read neighbouring scalars.
struct InnerSoa {
  template <class E, class L, class T>
  __device__ __forceinline__ static void load(const SpmvParams<T>& p, int pos, typename E::Matrix& a) {
    T s[E::C];
#pragma unroll
    for (int i = 0; i < E::C; ++i) s[i] = L::load(p.values + i * p.value_stride + pos);
    E::set(a, s);
  }
};

// y = alpha * acc + beta * y; beta == 0 never reads y (it may hold garbage or NaN).
template <class T>
__device__ __forceinline__ T combine(const SpmvParams<T>& p, T acc, const T* y) {
  return p.beta == T(0) ? p.alpha * acc : p.alpha * acc + p.beta * *y;
}

// The vector layouts give the address of component i of element j; stores follow from it:
//   store_y:      y = alpha * s + beta * y   (the only writer of the element)
//   scale_y:      y = beta * y               (before others add into it)
//   add_y_atomic: y += alpha * s by atomics  (several writers after scale_y)
// Each first maps the element through p.y_map: a renumbered product writes the caller's y directly, with
// no pass that moves the result back (one kernel less per product).
template <class T>
__device__ __forceinline__ int y_element(const SpmvParams<T>& p, int row) {
  return p.y_map ? __ldg(p.y_map + row) : row;
}

template <class Derived>
struct VecStores {
  template <class E, class T>
  __device__ __forceinline__ static void store_y(const SpmvParams<T>& p, int row, const T (&s)[E::V]) {
    store_y_element<E>(p, y_element(p, row), s);
  }
  // store_y of an element already mapped by y_element
  template <class E, class T>
  __device__ __forceinline__ static void store_y_element(const SpmvParams<T>& p, int element, const T (&s)[E::V]) {
#pragma unroll
    for (int i = 0; i < E::V; ++i) {
      T* y = Derived::template y_at<E>(p, element, i);
      *y = combine(p, s[i], y);
    }
  }
  template <class E, class T>
  __device__ __forceinline__ static void scale_y(const SpmvParams<T>& p, int row) {
    row = y_element(p, row);
#pragma unroll
    for (int i = 0; i < E::V; ++i) {
      T* y = Derived::template y_at<E>(p, row, i);
      *y = p.beta == T(0) ? T(0) : p.beta * *y;
    }
  }
  template <class E, class T>
  __device__ __forceinline__ static void add_y_atomic(const SpmvParams<T>& p, int row, const T (&s)[E::V]) {
    row = y_element(p, row);
#pragma unroll
    for (int i = 0; i < E::V; ++i) atomicAdd(Derived::template y_at<E>(p, row, i), p.alpha * s[i]);
  }
};

struct VecAos : VecStores<VecAos> {
  template <class E, class T>
  __device__ __forceinline__ static long long x_index(const SpmvParams<T>&, int j, int i) {
    return static_cast<long long>(j) * E::V + i;
  }
  template <class E, class T>
  __device__ __forceinline__ static void load_x(const SpmvParams<T>& p, int col, typename E::Vector& v) {
    T s[E::V];
    load_contiguous<T, E::V, LoadVector>(p.x + static_cast<long long>(col) * E::V, s);
    E::set(v, s);
  }
  template <class E, class T>
  __device__ __forceinline__ static T* y_at(const SpmvParams<T>& p, int row, int i) {
    return p.y + static_cast<long long>(row) * E::V + i;
  }
};

struct VecSoa : VecStores<VecSoa> {
  template <class E, class T>
  __device__ __forceinline__ static long long x_index(const SpmvParams<T>& p, int j, int i) {
    return i * p.x_stride + j;
  }
  template <class E, class T>
  __device__ __forceinline__ static void load_x(const SpmvParams<T>& p, int col, typename E::Vector& v) {
    T s[E::V];
#pragma unroll
    for (int i = 0; i < E::V; ++i) s[i] = __ldg(p.x + i * p.x_stride + col);
    E::set(v, s);
  }
  template <class E, class T>
  __device__ __forceinline__ static T* y_at(const SpmvParams<T>& p, int row, int i) {
    return p.y + i * p.y_stride + row;
  }
};

// The entry product a kernel applies: a * x (op n, and op t: the same entries) or adjoint(a) * x (op h).
struct MacPlain {
  template <class E>
  __device__ __forceinline__ static void mac(typename E::Vector& acc, const typename E::Matrix& a,
                                             const typename E::Vector& x) {
    E::mac(acc, a, x);
  }
};
struct MacAdjoint {
  template <class E>
  __device__ __forceinline__ static void mac(typename E::Vector& acc, const typename E::Matrix& a,
                                             const typename E::Vector& x) {
    E::mac_adjoint(acc, a, x);
  }
};

}  // namespace jitsparse
