#include "lancet/render.h"

#include <algorithm>
#include <cstdint>

#include "lancet/cli_common.h"
#include "lancet/value_json.h"

namespace lancet::cli {
namespace {

ValueOptions FullValues() {
  ValueOptions o;
  o.digest_threshold = SIZE_MAX;
  o.float32_shortest = true;
  return o;
}

size_t Utf8Length(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string Pad(const std::string& s, size_t width) {
  size_t len = Utf8Length(s);
  return len >= width ? s : s + std::string(width - len, ' ');
}

Status JsonRows(const RecordBatch& b, OutputSink& sink) {
  const ValueOptions values = FullValues();
  for (int64_t i = 0; i < b.num_rows; ++i) {
    JsonWriter w(&sink.buffer());
    w.BeginObject();
    for (size_t k = 0; k < b.columns.size(); ++k) {
      w.Key(b.schema.fields[k].name);
      RETURN_IF_ERROR(WriteValue(w, b.columns[k], i, nullptr, {}, values));
    }
    w.EndObject();
    sink.Append("\n");
    RETURN_IF_ERROR(sink.MaybeFlush());
  }
  return Status::OK();
}

Status CsvRows(const RecordBatch& b, OutputSink& sink) {
  for (int64_t i = 0; i < b.num_rows; ++i) {
    for (size_t k = 0; k < b.columns.size(); ++k) {
      if (k > 0) sink.Append(",");
      if (b.columns[k].IsNull(i)) continue;
      ASSIGN_OR_RETURN(std::string text, CellText(b.columns[k], i));
      sink.Append(CsvField(text));
    }
    sink.Append("\r\n");
    RETURN_IF_ERROR(sink.MaybeFlush());
  }
  return Status::OK();
}

Status RenderCsv(RecordBatchReader& reader, const std::vector<std::string>& names, OutputSink& sink) {
  if (names.empty()) return Status::OK();
  for (size_t k = 0; k < names.size(); ++k) {
    if (k > 0) sink.Append(",");
    sink.Append(CsvField(names[k]));
  }
  sink.Append("\r\n");
  while (true) {
    ASSIGN_OR_RETURN(std::optional<RecordBatch> b, reader.Next());
    if (!b) return Status::OK();
    RETURN_IF_ERROR(CsvRows(*b, sink));
  }
}

// Column widths come from the first width_sample_rows rows, so only the batches
// holding those are kept back; the rest stream through.
Status RenderTable(RecordBatchReader& reader, const std::vector<std::string>& names, const RenderOptions& options,
                   OutputSink& sink) {
  int64_t total = 0;
  if (names.empty()) {
    while (true) {
      ASSIGN_OR_RETURN(std::optional<RecordBatch> b, reader.Next());
      if (!b) break;
      total += b->num_rows;
    }
    sink.Append("(" + std::to_string(total) + (total == 1 ? " row)\n" : " rows)\n"));
    return Status::OK();
  }
  const size_t max_width = std::max<size_t>(options.max_width, 2);
  std::vector<size_t> widths(names.size());
  for (size_t k = 0; k < names.size(); ++k) widths[k] = Utf8Length(FitCell(names[k], max_width));
  std::vector<RecordBatch> held;
  size_t sampled = 0;
  bool ended = false;
  while (sampled < options.width_sample_rows) {
    ASSIGN_OR_RETURN(std::optional<RecordBatch> b, reader.Next());
    if (!b) {
      ended = true;
      break;
    }
    for (int64_t i = 0; i < b->num_rows && sampled < options.width_sample_rows; ++i, ++sampled) {
      for (size_t k = 0; k < b->columns.size(); ++k) {
        std::string text = "null";
        if (!b->columns[k].IsNull(i)) {
          ASSIGN_OR_RETURN(text, CellText(b->columns[k], i));
        }
        widths[k] = std::max(widths[k], Utf8Length(FitCell(text, max_width)));
      }
    }
    held.push_back(std::move(*b));
  }
  auto emit_line = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t k = 0; k < cells.size(); ++k) {
      if (k > 0) line += " | ";
      std::string cell = FitCell(cells[k], widths[k]);
      // The last column is not padded, so lines carry no trailing blanks.
      line += k + 1 == cells.size() ? cell : Pad(cell, widths[k]);
    }
    line += '\n';
    sink.Append(line);
  };
  std::vector<std::string> cells = names;
  emit_line(cells);
  std::string rule;
  for (size_t k = 0; k < widths.size(); ++k) {
    if (k > 0) rule += "-+-";
    rule += std::string(widths[k], '-');
  }
  sink.Append(rule + "\n");
  auto emit_batch = [&](const RecordBatch& b) -> Status {
    total += b.num_rows;
    for (int64_t i = 0; i < b.num_rows; ++i) {
      cells.clear();
      for (size_t k = 0; k < b.columns.size(); ++k) {
        if (b.columns[k].IsNull(i)) {
          cells.push_back("null");
        } else {
          ASSIGN_OR_RETURN(std::string text, CellText(b.columns[k], i));
          cells.push_back(std::move(text));
        }
      }
      emit_line(cells);
      RETURN_IF_ERROR(sink.MaybeFlush());
    }
    return Status::OK();
  };
  for (const RecordBatch& b : held) RETURN_IF_ERROR(emit_batch(b));
  held.clear();
  while (!ended) {
    ASSIGN_OR_RETURN(std::optional<RecordBatch> b, reader.Next());
    if (!b) break;
    RETURN_IF_ERROR(emit_batch(*b));
  }
  sink.Append("(" + std::to_string(total) + (total == 1 ? " row)\n" : " rows)\n"));
  return Status::OK();
}

Status Render(RecordBatchReader& reader, const std::vector<std::string>& names, const RenderOptions& options,
              OutputSink& sink) {
  switch (options.format) {
    case RowFormat::kJson:
      while (true) {
        ASSIGN_OR_RETURN(std::optional<RecordBatch> b, reader.Next());
        if (!b) return Status::OK();
        RETURN_IF_ERROR(JsonRows(*b, sink));
      }
    case RowFormat::kCsv:
      return RenderCsv(reader, names, sink);
    case RowFormat::kTable:
      return RenderTable(reader, names, options, sink);
  }
  return Status::Internal("unknown row format");
}

}  // namespace

Result<std::string> CellText(const Array& array, int64_t index) {
  if (array.IsNull(index)) return std::string("null");
  const TypeId id = array.type.id;
  if (id == TypeId::kUtf8 || id == TypeId::kLargeUtf8) return std::string(array.GetView(index));
  std::string out;
  JsonWriter w(&out);
  RETURN_IF_ERROR(WriteValue(w, array, index, nullptr, {}, FullValues()));
  // Scalars whose JSON is a quoted string (64-bit ints, decimals, hex) read better bare.
  if (!array.type.IsNested() && out.size() >= 2 && out.front() == '"') out = out.substr(1, out.size() - 2);
  return out;
}

std::string FitCell(const std::string& text, size_t width) {
  std::string out;
  size_t chars = 0;
  const size_t total = Utf8Length(text);
  const size_t keep = total <= width ? total : (width == 0 ? 0 : width - 1);
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const bool starts_char = (c & 0xC0) != 0x80;
    if (starts_char) {
      if (chars == keep) break;
      ++chars;
    }
    if (c < 0x20 || c == 0x7F) {
      // One visible character per control character keeps the column widths right.
      out += c == '\n' ? "\xE2\x86\xB5" : c == '\t' ? " " : "?";  // U+21B5 for line breaks
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  if (total > width) out += "\xE2\x80\xA6";  // U+2026 HORIZONTAL ELLIPSIS
  return out;
}

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

Status RenderRows(const std::vector<RecordBatch>& batches, const RenderOptions& options, OutputSink& sink) {
  std::vector<std::string> names = options.empty_header;
  Schema schema;
  if (!batches.empty()) {
    schema = batches.front().schema;
    names.clear();
    for (const Field& f : schema.fields) names.push_back(f.name);
  }
  auto reader = MakeBatchVectorReader(std::move(schema), batches);
  return Render(*reader, names, options, sink);
}

Status RenderRowStream(RecordBatchReader& reader, const RenderOptions& options, OutputSink& sink) {
  std::vector<std::string> names;
  for (const Field& f : reader.schema().fields) names.push_back(f.name);
  return Render(reader, names, options, sink);
}

RowFormat ParseRowFormat(const std::string& name) {
  return name == "json" ? RowFormat::kJson : name == "csv" ? RowFormat::kCsv : RowFormat::kTable;
}

int WriteRowStream(RecordBatchReader& reader, const RenderOptions& options, const std::string& out,
                   const std::string& context, const std::function<void()>& after_close) {
  auto sink = OutputSink::Open(out);
  if (!sink.ok()) return ReportError(sink.status());
  Status st = RenderRowStream(reader, options, **sink);
  if (!st.ok()) {
    (*sink)->Abandon();
    return ReportError(st, context);
  }
  st = (*sink)->Close();
  if (after_close) after_close();
  return st.ok() ? kExitOk : ReportError(st);
}

}  // namespace lancet::cli
