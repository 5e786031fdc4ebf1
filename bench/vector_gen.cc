// Vectors with real neighbour structure for recall benchmarks, shaped like SIFT (128-d,
// non-negative whole numbers): points drawn around 1,000 centres in a 12-d latent
// space, mapped to `dim` dimensions by a fixed random matrix, folded to |x| and rounded.
// Nearest neighbours in the latent space stay near in the output, so an IVF or HNSW
// index can reach high recall (the peer's make-vector-dataset has no such structure).
//   vector_gen OUT.lance [--rows 1000000] [--dim 128] [--seed 1] [--fragment-rows 262144]
// Writes OUT.lance (id int64, vec fixed_size_list<float32, dim>) and OUT.lance.queries.json
// (100 fresh draws, in the peer's query-file format).
#include <cmath>
#include <fstream>
#include <iostream>
#include <random>

#include <nlohmann/json.hpp>

#include "bench_check.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"

using lancet::bench::Check;
using lancet::bench::Die;

namespace {

constexpr int kLatent = 12;
constexpr int kCentres = 1000;

struct Generator {
  Generator(int dim, uint64_t seed) : dim(dim), rng(seed) {
    std::normal_distribution<float> g(0, 1);
    w.resize(static_cast<size_t>(dim * kLatent));
    for (float& x : w) x = g(rng) * 6;
    centres.resize(static_cast<size_t>(kCentres * kLatent));
    for (float& x : centres) x = g(rng) * 3;
  }
  void Draw(float* out) {
    std::normal_distribution<float> g(0, 1);
    const size_t c = std::uniform_int_distribution<size_t>(0, kCentres - 1)(rng);
    float z[kLatent];
    for (int l = 0; l < kLatent; ++l) z[l] = centres[c * kLatent + static_cast<size_t>(l)] + g(rng) * 0.35f;
    for (int d = 0; d < dim; ++d) {
      float s = 0;
      for (int l = 0; l < kLatent; ++l) s += w[static_cast<size_t>(d * kLatent + l)] * z[l];
      out[d] = std::round(std::fabs(s / 4 + g(rng)));
    }
  }
  int dim;
  std::mt19937_64 rng;
  std::vector<float> w, centres;
};

class GenReader : public lancet::RecordBatchReader {
 public:
  GenReader(Generator& gen, uint64_t rows) : gen_(gen), rows_(rows) {
    schema_.fields = {
        lancet::MakeField("id", lancet::MakeType(lancet::TypeId::kInt64), false),
        lancet::MakeField("vec", lancet::FixedSizeListOf(
                                     lancet::MakeField("item", lancet::MakeType(lancet::TypeId::kFloat32)), gen.dim))};
  }
  const lancet::Schema& schema() const override { return schema_; }
  lancet::Result<std::optional<lancet::RecordBatch>> Next() override {
    if (done_ >= rows_) return std::optional<lancet::RecordBatch>();
    const uint64_t n = std::min<uint64_t>(65536, rows_ - done_);
    std::vector<int64_t> ids(n);
    std::vector<float> values(n * static_cast<size_t>(gen_.dim));
    for (uint64_t i = 0; i < n; ++i) {
      ids[i] = static_cast<int64_t>(done_ + i);
      gen_.Draw(values.data() + i * static_cast<size_t>(gen_.dim));
    }
    lancet::RecordBatch b;
    b.schema = schema_;
    b.num_rows = static_cast<int64_t>(n);
    ASSIGN_OR_RETURN(lancet::Array id, lancet::ArrayFromVector(lancet::MakeType(lancet::TypeId::kInt64), ids));
    ASSIGN_OR_RETURN(lancet::Array items, lancet::ArrayFromVector(lancet::MakeType(lancet::TypeId::kFloat32), values));
    ASSIGN_OR_RETURN(lancet::Array vec, lancet::MakeFixedSizeListArray(schema_.fields[1].type, b.num_rows, items));
    b.columns = {std::move(id), std::move(vec)};
    done_ += n;
    return std::optional<lancet::RecordBatch>(std::move(b));
  }

 private:
  Generator& gen_;
  uint64_t rows_, done_ = 0;
  lancet::Schema schema_;
};

}  // namespace

int main(int argc, char** argv) {
  std::string out;
  uint64_t rows = 1000000, fragment_rows = 262144, seed = 1;
  int dim = 128;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Die("missing value for " + a);
      return argv[++i];
    };
    if (a == "--rows")
      rows = std::stoull(value());
    else if (a == "--dim")
      dim = std::stoi(value());
    else if (a == "--seed")
      seed = std::stoull(value());
    else if (a == "--fragment-rows")
      fragment_rows = std::stoull(value());
    else if (a[0] == '-')
      Die("unknown option " + a);
    else
      out = a;
  }
  if (out.empty() || dim < 1 || rows < 1) Die("usage: vector_gen OUT.lance [--rows N] [--dim D] [--seed S]");
  Generator gen(dim, seed);
  GenReader reader(gen, rows);
  lancet::table::WriteParams p;
  p.max_rows_per_file = fragment_rows;
  Check(lancet::table::WriteDataset(out, reader, p), out);
  nlohmann::json q = {{"kind", "vector-queries"}, {"seed", seed}, {"column", "vec"}, {"dataset", out}};
  std::vector<float> v(static_cast<size_t>(dim));
  for (int i = 0; i < 100; ++i) {
    gen.Draw(v.data());
    q["queries"].push_back(v);
  }
  std::ofstream(out + ".queries.json") << q.dump() << "\n";
  std::cout << "wrote " << rows << " rows of " << dim << "-d vectors to " << out << "\n";
  return 0;
}
