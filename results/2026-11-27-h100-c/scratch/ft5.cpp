#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "core/features.hpp"
#include "core/yardstick.hpp"
#include "tuner/builtin_matrices.hpp"
#include "selection/model.hpp"
#include "selection/database.hpp"
using namespace jitsparse;
static double since(std::chrono::steady_clock::time_point t){return std::chrono::duration<double,std::milli>(std::chrono::steady_clock::now()-t).count();}
int main(int argc,char**argv){
  TuningDatabase db(argv[1]);
  SelectionModel model(db, 50<<20); model.prepare();
  std::vector<char> junk(256<<20, 1);
  for (int i=2;i<argc;i++){
    auto m = builtin_matrix(argv[i]).matrix;
    for (Precision p : {Precision::f32, Precision::f64}) {
      MatrixFeatures f=compute_features(m);
      ModelQuery q{f, compulsory_bytes(m, p), m.entry.name, p, Op::n, false, m.entry.num_components()};
      double cold=0, warm=0, fc=0; int n=5;
      for(int k=0;k<n;k++){
        long s=0; for(size_t j=0;j<junk.size();j+=64) s+=junk[j]++;  // evict the caches
        auto t0=std::chrono::steady_clock::now(); compute_features(m); fc+=since(t0);
        t0=std::chrono::steady_clock::now(); model.predict(q); cold+=since(t0);
        t0=std::chrono::steady_clock::now(); model.predict(q); warm+=since(t0);
        if(s==42) std::printf(" ");
      }
      std::printf("%s %s: features cold %.3f, predict cold %.3f warm %.3f ms\n", argv[i], to_string(p).c_str(), fc/n, cold/n, warm/n);
    }
  }
}
