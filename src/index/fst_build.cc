// Building the `fst` crate's map format the way the crate's Builder does (same node
// choices, same 10000x2 most-recently-used registry of compiled nodes), so a map built here
// is byte-identical to the crate's for the same entries.
#include <algorithm>
#include <string>
#include <vector>

#include "index/fst.h"
#include "index/fst_format.h"

namespace lancet::index::fst {
namespace {

constexpr uint64_t kNoneAddress = 1;  // "not compiled yet"; never a real node address
constexpr size_t kRegistryRows = 10000;
constexpr size_t kRegistryWays = 2;

struct Trans {
  uint8_t input = 0;
  uint64_t output = 0;
  uint64_t addr = 0;
  bool operator==(const Trans&) const = default;
};

struct BuilderNode {
  bool is_final = false;
  uint64_t final_output = 0;
  std::vector<Trans> trans;
  bool operator==(const BuilderNode&) const = default;
};

// A node still open for more transitions, with its pending last transition (whose target
// is not compiled yet).
struct Unfinished {
  BuilderNode node;
  bool has_last = false;
  uint8_t last_input = 0;
  uint64_t last_output = 0;

  void FreezeLast(uint64_t addr) {
    if (!has_last) return;
    node.trans.push_back({last_input, last_output, addr});
    has_last = false;
  }
  void AddOutputPrefix(uint64_t prefix) {
    if (node.is_final) node.final_output += prefix;
    for (Trans& t : node.trans) t.output += prefix;
    if (has_last) last_output += prefix;
  }
};

// Identical nodes compile once: a small hash table of recently compiled nodes, two per
// bucket in most-recently-used order. Its size decides which duplicates get shared, so it
// matches the crate's to keep the bytes identical.
class Registry {
 public:
  Registry() : cells_(kRegistryRows * kRegistryWays) {}

  // The address of an identical compiled node, or kNoneAddress after reserving the cell
  // that Insert fills.
  uint64_t Find(const BuilderNode& node) {
    Cell* c = &cells_[Bucket(node) * kRegistryWays];
    if (c[0].addr != kNoneAddress && c[0].node == node) return c[0].addr;
    if (c[1].addr != kNoneAddress && c[1].node == node) {
      std::swap(c[0], c[1]);
      return c[0].addr;
    }
    c[1].node = node;
    std::swap(c[0], c[1]);
    pending_ = &c[0];
    return kNoneAddress;
  }
  void Insert(uint64_t addr) { pending_->addr = addr; }

 private:
  struct Cell {
    uint64_t addr = kNoneAddress;
    BuilderNode node;
  };
  static size_t Bucket(const BuilderNode& node) {
    constexpr uint64_t kPrime = 1099511628211ULL;  // FNV-1a
    uint64_t h = 14695981039346656037ULL;
    h = (h ^ uint64_t{node.is_final}) * kPrime;
    h = (h ^ node.final_output) * kPrime;
    for (const Trans& t : node.trans) {
      h = (h ^ t.input) * kPrime;
      h = (h ^ t.output) * kPrime;
      h = (h ^ t.addr) * kPrime;
    }
    return static_cast<size_t>(h % kRegistryRows);
  }
  std::vector<Cell> cells_;
  Cell* pending_ = nullptr;
};

void PackUint(std::string* out, uint64_t v, uint8_t n) {
  for (uint8_t i = 0; i < n; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

// Transition targets are written as distances below the node's first byte; 0 stays 0.
uint64_t Delta(uint64_t node_start, uint64_t target) { return target == kEmptyAddress ? 0 : node_start - target; }

class Builder {
 public:
  Builder() {
    PackUint(&out_, kVersion, 8);
    PackUint(&out_, 0, 8);  // type: the crate's maps use 0
    stack_.emplace_back();
  }

  void Insert(std::string_view key, uint64_t value) {
    if (key.empty()) {
      // Only ever the first key.
      count_ = 1;
      stack_[0].node.is_final = true;
      stack_[0].node.final_output = value;
      return;
    }
    // Walk the shared prefix, leaving on each shared transition the smaller output and
    // pushing the rest down to the next node.
    size_t i = 0;
    uint64_t out = value;
    while (i < key.size() && stack_[i].has_last && stack_[i].last_input == static_cast<uint8_t>(key[i])) {
      Unfinished& u = stack_[i];
      const uint64_t common = std::min(u.last_output, out);
      const uint64_t push_down = u.last_output - common;
      out -= common;
      u.last_output = common;
      ++i;
      if (push_down != 0) stack_[i].AddOutputPrefix(push_down);
    }
    ++count_;
    CompileFrom(i);
    // Open nodes for the rest of the key; the first new transition carries the output.
    Unfinished& top = stack_.back();
    top.has_last = true;
    top.last_input = static_cast<uint8_t>(key[i]);
    top.last_output = out;
    for (size_t k = i + 1; k < key.size(); ++k) {
      Unfinished u;
      u.has_last = true;
      u.last_input = static_cast<uint8_t>(key[k]);
      stack_.push_back(std::move(u));
    }
    Unfinished leaf;
    leaf.node.is_final = true;
    stack_.push_back(std::move(leaf));
  }

  std::string Finish() {
    CompileFrom(0);
    const uint64_t root = Compile(stack_[0].node);
    PackUint(&out_, count_, 8);
    PackUint(&out_, root, 8);
    const uint32_t sum = MaskedChecksum({reinterpret_cast<const uint8_t*>(out_.data()), out_.size()});
    PackUint(&out_, sum, 4);
    return std::move(out_);
  }

 private:
  // Compiles every open node deeper than `depth` (they can take no more transitions).
  void CompileFrom(size_t depth) {
    uint64_t addr = kNoneAddress;
    while (depth + 1 < stack_.size()) {
      Unfinished u = std::move(stack_.back());
      stack_.pop_back();
      if (addr != kNoneAddress) u.FreezeLast(addr);
      addr = Compile(u.node);
    }
    stack_.back().FreezeLast(addr);
  }

  uint64_t Compile(const BuilderNode& node) {
    if (node.is_final && node.trans.empty() && node.final_output == 0) return kEmptyAddress;
    const uint64_t found = registry_.Find(node);
    if (found != kNoneAddress) return found;
    Write(node);
    last_addr_ = out_.size() - 1;
    registry_.Insert(last_addr_);
    return last_addr_;
  }

  void Write(const BuilderNode& node) {
    const uint64_t start = out_.size();
    if (node.trans.size() == 1 && !node.is_final) {
      const Trans& t = node.trans[0];
      const uint8_t code = CommonInputCode(t.input);
      if (t.addr == last_addr_ && t.output == 0) {
        if (code == 0) out_.push_back(static_cast<char>(t.input));
        out_.push_back(static_cast<char>((kOneTransNext << 6) | code));
        return;
      }
      const uint8_t osize = t.output == 0 ? 0 : PackSize(t.output);
      if (osize != 0) PackUint(&out_, t.output, osize);
      const uint64_t delta = Delta(start, t.addr);
      const uint8_t tsize = PackSize(delta);
      PackUint(&out_, delta, tsize);
      out_.push_back(static_cast<char>(tsize << 4 | osize));
      if (code == 0) out_.push_back(static_cast<char>(t.input));
      out_.push_back(static_cast<char>((kOneTrans << 6) | code));
      return;
    }
    WriteAny(node, start);
  }

  void WriteAny(const BuilderNode& node, uint64_t start) {
    uint8_t tsize = 0;
    uint8_t osize = PackSize(node.final_output);
    bool any_outs = node.final_output != 0;
    for (const Trans& t : node.trans) {
      tsize = std::max(tsize, PackSize(Delta(start, t.addr)));
      osize = std::max(osize, PackSize(t.output));
      any_outs = any_outs || t.output != 0;
    }
    if (!any_outs) osize = 0;
    if (any_outs) {
      if (node.is_final) PackUint(&out_, node.final_output, osize);
      for (auto t = node.trans.rbegin(); t != node.trans.rend(); ++t) PackUint(&out_, t->output, osize);
    }
    for (auto t = node.trans.rbegin(); t != node.trans.rend(); ++t) PackUint(&out_, Delta(start, t->addr), tsize);
    for (auto t = node.trans.rbegin(); t != node.trans.rend(); ++t) out_.push_back(static_cast<char>(t->input));
    const size_t n = node.trans.size();
    if (n > kTransIndexThreshold) {
      std::string index(256, '\xFF');
      for (size_t i = 0; i < n; ++i) index[node.trans[i].input] = static_cast<char>(i);
      out_ += index;
    }
    out_.push_back(static_cast<char>(tsize << 4 | osize));
    // Up to 63 transitions fit the state byte; more take a byte of their own, where 1
    // (never needed for real) stands for 256.
    const bool in_state = n >= 1 && n <= 0x3F;
    if (!in_state) out_.push_back(static_cast<char>(n == 256 ? 1 : n));
    out_.push_back(static_cast<char>((node.is_final ? 0x40 : 0) | (in_state ? n : 0)));
  }

  std::string out_;
  std::vector<Unfinished> stack_;
  Registry registry_;
  uint64_t last_addr_ = kNoneAddress;
  uint64_t count_ = 0;
};

}  // namespace

Result<std::string> BuildMap(std::span<const std::pair<std::string, uint64_t>> entries) {
  for (size_t i = 1; i < entries.size(); ++i) {
    if (!(entries[i - 1].first < entries[i].first)) {
      return Status::InvalidArgument("FST keys must be strictly ascending; entry " + std::to_string(i) + " is not");
    }
  }
  Builder b;
  for (const auto& [key, value] : entries) b.Insert(key, value);
  return b.Finish();
}

}  // namespace lancet::index::fst
