// `lancet search`: the rows nearest to query vectors, through the column's vector
// index where one covers the rows and exactly elsewhere.
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "lancet/commands.h"
#include "lancet/io_stats_line.h"
#include "lancet/render.h"
#include "lancet/scan/search.h"
#include "lancet/scan/text_search.h"

namespace lancet::cli {
namespace {

using Json = nlohmann::json;

Result<std::vector<float>> VectorFrom(const Json& j) {
  if (!j.is_array() || j.empty()) return Status::InvalidArgument("a query vector is a non-empty JSON array of numbers");
  std::vector<float> v;
  for (const Json& x : j) {
    if (!x.is_number()) return Status::InvalidArgument("a query vector holds numbers only, not " + x.dump());
    v.push_back(x.get<float>());
  }
  return v;
}

// `[1,2,3]` is one query, `[[..],[..]]` several, `{"queries": [...]}` (the peer's query
// files) several; `text` is JSON or the path of a file holding it.
Result<std::vector<std::vector<float>>> ParseQueries(const std::string& text, std::optional<size_t> pick) {
  std::string json = text;
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || (text[first] != '[' && text[first] != '{')) {
    std::ifstream in(text);
    if (!in) return Status::InvalidArgument("--vector: neither a JSON array nor a readable file: " + text);
    std::stringstream ss;
    ss << in.rdbuf();
    json = ss.str();
  }
  Json parsed = Json::parse(json, nullptr, false);
  if (parsed.is_discarded()) return Status::InvalidArgument("--vector: not valid JSON");
  if (parsed.is_object()) {
    if (!parsed.contains("queries"))
      return Status::InvalidArgument("--vector: a JSON object needs a \"queries\" array");
    parsed = parsed["queries"];
  }
  std::vector<std::vector<float>> out;
  if (parsed.is_array() && !parsed.empty() && parsed[0].is_array()) {
    for (const Json& q : parsed) {
      ASSIGN_OR_RETURN(std::vector<float> v, VectorFrom(q));
      out.push_back(std::move(v));
    }
  } else {
    ASSIGN_OR_RETURN(std::vector<float> v, VectorFrom(parsed));
    out.push_back(std::move(v));
  }
  if (pick) {
    if (*pick >= out.size()) {
      return Status::InvalidArgument("--query " + std::to_string(*pick) + ": there are only " +
                                     std::to_string(out.size()) + " queries");
    }
    out = {out[*pick]};
  }
  return out;
}

struct SearchState {
  std::string dataset;
  VersionSelector selector;
  std::string column;
  std::string vector;
  std::string text;
  std::string text_column;
  bool phrase = false;
  uint32_t slop = 0;
  bool all_terms = false;
  std::optional<int> fuzziness;
  std::string fusion = "rrf";
  std::vector<std::string> must, should, must_not;
  std::optional<size_t> query;
  uint32_t k = 10;
  std::string distance;
  uint32_t nprobes = 0;
  std::optional<uint32_t> refine_factor;
  uint32_t ef = 0;
  bool bypass_index = false;
  bool postfilter = false;
  std::string where;
  uint64_t offset = 0;
  std::string columns;
  bool row_ids = false;
  std::string format = "table";
  std::string out;
  bool explain = false;
  bool io_stats = false;

  int Run() const {
    const bool boolean = !must.empty() || !should.empty() || !must_not.empty();
    if (vector.empty() && text.empty() && !boolean)
      return ReportUsage("give --vector, --text (or --must/--should) or both");
    if (boolean && must.empty() && should.empty() && text.empty()) {
      return ReportUsage("--must-not needs a --must, --should or --text clause to match rows");
    }
    scan::VectorQuery q;
    if (!vector.empty()) {
      auto queries = ParseQueries(vector, query);
      if (!queries.ok()) return ReportUsage(queries.status().message());
      q.column = column;
      q.vectors = queries.MoveValue();
      q.k = k;
      if (!distance.empty()) {
        auto d = index::ParseDistanceType(distance);
        if (!d.ok()) return ReportUsage("--distance: " + d.status().message());
        q.distance = *d;
      }
      q.nprobes = nprobes;
      q.refine_factor = refine_factor;
      q.ef = ef;
      q.use_index = !bypass_index;
      q.postfilter = postfilter;
    }
    auto ds = OpenDataset(dataset, selector);
    if (!ds.ok()) return ReportError(ds.status());
    table::ScanOptions scan;
    scan.columns = SplitList(columns);
    scan.filter = where;
    scan.offset = offset;
    scan.with_row_id = row_ids;
    std::string plan;
    Result<std::unique_ptr<RecordBatchReader>> reader = Status::Internal("no search ran");
    if (vector.empty()) {
      scan::TextSearchExplain explained;
      reader = scan::TextSearch(**ds, scan, TextRequest(), &explained);
      plan = explained.ToString();
    } else if (!text.empty() || boolean) {
      scan::HybridOptions hybrid;
      if (fusion == "linear") hybrid.fusion = scan::Fusion::kLinear;
      reader = scan::HybridSearch(**ds, scan, q, TextRequest(), hybrid);
    } else {
      scan::SearchExplain explained;
      reader = scan::Search(**ds, scan, q, &explained);
      plan = explained.ToString();
    }
    if (!reader.ok()) {
      const Status& st = reader.status();
      if (st.IsInvalidArgument() || st.IsNotFound()) return ReportUsage(st.message());
      return ReportError(st, dataset);
    }
    if (explain) {
      std::fputs(plan.c_str(), stdout);
      if (io_stats) PrintIoStats(**ds);
      return kExitOk;
    }
    RenderOptions render;
    render.format = ParseRowFormat(format);
    return WriteRowStream(**reader, render, out, dataset, [&] {
      if (io_stats) PrintIoStats(**ds);
    });
  }

  scan::TextSearchRequest TextRequest() const {
    scan::TextSearchRequest r;
    r.column = !text_column.empty() ? text_column : vector.empty() ? column : "";
    r.query.text = text;
    r.query.phrase = phrase;
    r.query.slop = slop;
    r.query.op = all_terms ? index::TextOperator::kAnd : index::TextOperator::kOr;
    if (fuzziness) {
      r.query.fuzzy = true;
      if (*fuzziness >= 0) r.query.fuzziness = static_cast<uint32_t>(*fuzziness);
    }
    r.k = k;
    const bool boolean = !must.empty() || !should.empty() || !must_not.empty();
    if (boolean) {
      index::TextQuery base = r.query;
      r.query = index::TextQuery();
      auto add = [&](index::Occur occur, const std::string& t) {
        index::TextClause c;
        c.occur = occur;
        c.query = base;
        c.query.text = t;
        r.query.clauses.push_back(std::move(c));
      };
      if (!text.empty()) add(index::Occur::kShould, text);
      for (const std::string& t : must) add(index::Occur::kMust, t);
      for (const std::string& t : should) add(index::Occur::kShould, t);
      for (const std::string& t : must_not) add(index::Occur::kMustNot, t);
    }
    return r;
  }
};

}  // namespace

Command AddSearchCommand(CLI::App& root) {
  auto state = std::make_shared<SearchState>();
  CLI::App* app = root.add_subcommand(
      "search", "Print the rows nearest to query vectors, the best BM25 matches of a text query, or both fused");
  app->add_option("DATASET", state->dataset, "Dataset directory")->required();
  app->add_option("COLUMN", state->column,
                  "Vector column (default: the dataset's only one); with only --text, the text column");
  app->add_option("--vector,-q", state->vector,
                  "Query as JSON ([0.1, 0.2, ...]; [[...], [...]] for several, each output row then starting "
                  "with query_index), or a file holding such JSON or {\"queries\": [...]}");
  app->add_option("--text,-t", state->text,
                  "Full-text query (BM25 through the column's FTS index; \"quoted\" text is a phrase); with --vector, "
                  "a hybrid search");
  app->add_option("--text-column", state->text_column, "Column of --text (default: the only one with an FTS index)");
  app->add_option("--must", state->must, "Boolean query: rows must match this text (repeatable)");
  app->add_option("--should", state->should, "Boolean query: matching this text adds to the score (repeatable)");
  app->add_option("--must-not", state->must_not, "Boolean query: rows matching this text are dropped (repeatable)");
  app->add_flag("--phrase", state->phrase, "Match --text as a phrase (the index needs positions)");
  app->add_option("--slop", state->slop, "Phrase: allowed gap between the tokens");
  app->add_flag("--all-terms", state->all_terms, "Match rows holding every token of --text (default: any)");
  app->add_option("--fuzziness", state->fuzziness, "Fuzzy match within this edit distance (-1: automatic)");
  app->add_option("--fusion", state->fusion, "Hybrid: rrf (reciprocal rank fusion, k=60) or linear")
      ->capture_default_str()
      ->check(CLI::IsMember({"rrf", "linear"}));
  app->add_option("--query", state->query, "Only query N (from 0) of several");
  app->add_option("-k,--limit", state->k, "Rows per query")->capture_default_str()->check(CLI::Range(1u, 1000000u));
  app->add_option("--distance", state->distance,
                  "l2 (squared), cosine, dot or hamming; default: the index's, else l2 (uint8 columns: hamming)");
  app->add_option("--nprobes", state->nprobes, "IVF partitions searched (default 20)");
  app->add_option("--refine-factor", state->refine_factor, "Re-rank this many times k index candidates exactly");
  app->add_option("--ef", state->ef, "HNSW search beam (default: the index's)");
  app->add_flag("--bypass-index", state->bypass_index, "Search exactly even where an index exists");
  app->add_option("--where,-w", state->where, "Search only rows for which this filter is true");
  app->add_flag("--postfilter", state->postfilter, "Apply --where to the k nearest instead (may return fewer)");
  app->add_option("--offset", state->offset, "Skip this many of each query's nearest rows");
  app->add_option("--columns,-c", state->columns,
                  "Comma-separated output columns (default: all); _distance, _score or _relevance_score is added");
  app->add_flag("--row-ids", state->row_ids, "Add the _rowid column");
  app->add_option("--format,-f", state->format, "Output format")
      ->capture_default_str()
      ->check(CLI::IsMember({"table", "json", "csv"}));
  app->add_option("--out,-o", state->out, "Write to this file instead of stdout");
  app->add_flag("--explain", state->explain, "Print how the search ran (index, partitions, flat fragments), not rows");
  state->selector.AddOptions(*app);
  AddIoStatsFlag(*app, &state->io_stats);
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
