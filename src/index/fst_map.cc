// Reading the `fst` crate's map format. Every offset is checked before use: the bytes may
// be hostile, and a transition must point strictly below its node so walks terminate.
#include <string>
#include <vector>

#include "index/fst.h"
#include "index/fst_format.h"

namespace lancet::index::fst {
namespace {

struct Transition {
  uint8_t input = 0;
  uint64_t output = 0;
  uint64_t addr = 0;
};

// One decoded node; `low` is the lowest byte it occupies, `addr` its state byte.
struct Node {
  uint64_t addr = 0;
  uint64_t low = 0;
  bool is_final = false;
  uint64_t final_output = 0;
  uint32_t ntrans = 0;
  uint8_t kind = 0;  // kOneTransNext, kOneTrans, or 0 for "any" and the empty final node
  size_t tsize = 0;
  size_t osize = 0;
  // "any" nodes: where the sizes byte sits and whether the 256-byte index precedes it.
  uint64_t sizes_at = 0;
  size_t index_size = 0;
  Transition single;  // the one transition of the one-transition kinds
};

class Reader {
 public:
  Reader(const std::string& bytes, uint64_t version, uint64_t limit, const std::string& what)
      : p_(reinterpret_cast<const uint8_t*>(bytes.data())), version_(version), limit_(limit), what_(what) {}

  Status Bad(const char* why, uint64_t addr) const {
    return Status::Corruption(what_ + ": FST node at " + std::to_string(addr) + ": " + why);
  }

  Status Decode(uint64_t addr, Node* n) const {
    *n = Node{};
    n->addr = addr;
    if (addr == kEmptyAddress) {
      n->is_final = true;
      return Status::OK();
    }
    if (addr < kHeaderSize || addr >= limit_) return Bad("address out of range", addr);
    const uint8_t state = p_[addr];
    // `need` bytes below the state byte must stay above the header.
    auto below = [&](uint64_t need) { return need <= addr - kHeaderSize; };
    const uint8_t kind = state >> 6;
    if (kind == kOneTransNext || kind == kOneTrans) {
      n->kind = kind;
      n->ntrans = 1;
      const uint8_t code = state & 0x3F;
      const uint64_t input_len = code == 0 ? 1 : 0;
      if (!below(input_len)) return Bad("truncated", addr);
      n->single.input = code == 0 ? p_[addr - 1] : CommonInputByte(code);
      if (kind == kOneTransNext) {
        n->low = addr - input_len;
        n->single.addr = n->low - 1;
        return Status::OK();
      }
      if (!below(input_len + 1)) return Bad("truncated", addr);
      const uint8_t sizes = p_[addr - input_len - 1];
      n->tsize = sizes >> 4;
      n->osize = sizes & 0x0F;
      if (n->tsize < 1 || n->tsize > 8 || n->osize > 8) return Bad("bad pack sizes", addr);
      const uint64_t span = input_len + 1 + n->tsize + n->osize;
      if (!below(span)) return Bad("truncated", addr);
      n->low = addr - span;
      n->single.output = n->osize == 0 ? 0 : UnpackUint(p_ + n->low, n->osize);
      return Target(*n, UnpackUint(p_ + n->low + n->osize, n->tsize), &n->single.addr);
    }
    n->is_final = (state & 0x40) != 0;
    uint64_t ntrans_len = 0;
    uint32_t ntrans = state & 0x3F;
    if (ntrans == 0) {
      ntrans_len = 1;
      if (!below(1)) return Bad("truncated", addr);
      ntrans = p_[addr - 1];
      if (ntrans == 1) ntrans = 256;  // 1 never needs this byte, so it stands for 256
    }
    n->ntrans = ntrans;
    if (!below(ntrans_len + 1)) return Bad("truncated", addr);
    n->sizes_at = addr - ntrans_len - 1;
    const uint8_t sizes = p_[n->sizes_at];
    n->tsize = sizes >> 4;
    n->osize = sizes & 0x0F;
    if (n->tsize > 8 || n->osize > 8 || (ntrans > 0 && n->tsize == 0)) return Bad("bad pack sizes", addr);
    n->index_size = version_ >= 2 && ntrans > kTransIndexThreshold ? 256 : 0;
    const uint64_t trans_bytes = ntrans + uint64_t{ntrans} * n->tsize + n->index_size;
    const uint64_t outs = uint64_t{ntrans} * n->osize + (n->is_final ? n->osize : 0);
    const uint64_t span = ntrans_len + 1 + trans_bytes + outs;
    if (!below(span)) return Bad("truncated", addr);
    n->low = addr - span;
    if (n->is_final && n->osize > 0) n->final_output = UnpackUint(p_ + n->low, n->osize);
    return Status::OK();
  }

  // The i-th transition (ascending input) of a node.
  Status Trans(const Node& n, uint32_t i, Transition* t) const {
    if (n.kind != 0) {
      *t = n.single;
      return Status::OK();
    }
    const uint64_t inputs_top = n.sizes_at - n.index_size;
    t->input = p_[inputs_top - i - 1];
    const uint64_t addrs_top = inputs_top - n.ntrans;
    RETURN_IF_ERROR(Target(n, UnpackUint(p_ + addrs_top - (uint64_t{i} + 1) * n.tsize, n.tsize), &t->addr));
    const uint64_t outs_top = addrs_top - uint64_t{n.ntrans} * n.tsize;
    t->output = n.osize == 0 ? 0 : UnpackUint(p_ + outs_top - (uint64_t{i} + 1) * n.osize, n.osize);
    return Status::OK();
  }

  // Index of the transition on `b`, or ntrans when there is none.
  uint32_t Find(const Node& n, uint8_t b) const {
    if (n.kind != 0) return n.single.input == b ? 0 : 1;
    if (n.ntrans == 0) return 0;
    const uint64_t inputs_top = n.sizes_at - n.index_size;
    if (n.index_size != 0) {
      const uint32_t i = p_[inputs_top + b];
      // The index is only a hint in hostile bytes: confirm it names an input of `b`.
      return i < n.ntrans && p_[inputs_top - i - 1] == b ? i : n.ntrans;
    }
    for (uint32_t i = 0; i < n.ntrans; ++i) {
      if (p_[inputs_top - i - 1] == b) return i;
    }
    return n.ntrans;
  }

 private:
  // Transition addresses are stored as distances below the node (0: the empty final node).
  Status Target(const Node& n, uint64_t delta, uint64_t* out) const {
    if (delta == 0) {
      *out = kEmptyAddress;
      return Status::OK();
    }
    if (delta > n.low) return Bad("transition below the start", n.addr);
    *out = n.low - delta;
    return Status::OK();
  }

  const uint8_t* p_;
  uint64_t version_;
  uint64_t limit_;
  const std::string& what_;
};

uint64_t Read64(const std::string& s, size_t at) {
  return UnpackUint(reinterpret_cast<const uint8_t*>(s.data()) + at, 8);
}

// Version 1 and 2 files lack the checksum (the crate still reads them).
uint64_t FooterSize(uint64_t version) { return version >= 3 ? 20 : 16; }

}  // namespace

Result<Map> Map::Open(std::string bytes, std::string what) {
  if (bytes.size() < 36) return Status::Corruption(what + ": FST of " + std::to_string(bytes.size()) + " bytes");
  const uint64_t version = Read64(bytes, 0);
  if (version == 0 || version > kVersion) {
    return Status::Corruption(what + ": FST version " + std::to_string(version) + " (Lancet reads 1 to 3)");
  }
  const uint64_t footer = FooterSize(version);
  const size_t end = bytes.size() - (footer - 16);
  if (version >= 3) {
    const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
    const uint32_t stored = static_cast<uint32_t>(UnpackUint(p + end, 4));
    if (MaskedChecksum({p, end}) != stored) return Status::Corruption(what + ": FST checksum mismatch");
  }
  Map m;
  m.size_ = Read64(bytes, end - 16);
  m.root_ = Read64(bytes, end - 8);
  // The root is the last node written, right before the footer; only a map holding just
  // the empty key with value 0 has no root node at all.
  const bool empty_root = m.root_ == kEmptyAddress && bytes.size() == kHeaderSize + footer;
  if (!empty_root && (m.root_ == kEmptyAddress || m.root_ + 1 + footer != bytes.size())) {
    return Status::Corruption(what + ": FST root address " + std::to_string(m.root_) + " in " +
                              std::to_string(bytes.size()) + " bytes");
  }
  m.version_ = version;
  m.limit_ = bytes.size() - footer;
  m.bytes_ = std::move(bytes);
  m.what_ = std::move(what);
  Node root;
  RETURN_IF_ERROR(Reader(m.bytes_, m.version_, m.limit_, m.what_).Decode(m.root_, &root));
  return m;
}

Result<std::optional<uint64_t>> Map::Get(std::string_view key) const {
  const Reader r(bytes_, version_, limit_, what_);
  Node n;
  RETURN_IF_ERROR(r.Decode(root_, &n));
  uint64_t out = 0;
  for (const char c : key) {
    const uint32_t i = r.Find(n, static_cast<uint8_t>(c));
    if (i >= n.ntrans) return std::optional<uint64_t>();
    Transition t;
    RETURN_IF_ERROR(r.Trans(n, i, &t));
    out += t.output;
    RETURN_IF_ERROR(r.Decode(t.addr, &n));
  }
  if (!n.is_final) return std::optional<uint64_t>();
  return std::optional<uint64_t>(out + n.final_output);
}

Status Map::ForEach(const std::function<bool(std::string_view key, uint64_t value)>& fn) const {
  const Reader r(bytes_, version_, limit_, what_);
  struct Frame {
    Node node;
    uint32_t next = 0;
    int last_input = -1;
    uint64_t out = 0;
  };
  std::vector<Frame> stack(1);
  RETURN_IF_ERROR(r.Decode(root_, &stack[0].node));
  std::string key;
  uint64_t seen = 0;
  // Emits one key; more keys than the footer's count means the graph is not what it claims.
  auto emit = [&](uint64_t value) -> Result<bool> {
    if (++seen > size_)
      return Status::Corruption(what_ + ": FST holds more keys than its count " + std::to_string(size_));
    return fn(key, value);
  };
  if (stack[0].node.is_final) {
    ASSIGN_OR_RETURN(bool go_on, emit(stack[0].node.final_output));
    if (!go_on) return Status::OK();
  }
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next >= f.node.ntrans) {
      stack.pop_back();
      if (!key.empty()) key.pop_back();
      continue;
    }
    Transition t;
    RETURN_IF_ERROR(r.Trans(f.node, f.next, &t));
    // Inputs must ascend within a node, or keys would come out of order or twice.
    if (f.last_input >= t.input) return r.Bad("transitions out of order", f.node.addr);
    f.last_input = t.input;
    ++f.next;
    Frame child;
    child.out = f.out + t.output;
    RETURN_IF_ERROR(r.Decode(t.addr, &child.node));
    // A non-final node without transitions leads to no key; the builder never writes one,
    // and allowing it would let hostile bytes make the walk exponential without output.
    if (!child.node.is_final && child.node.ntrans == 0) return r.Bad("dead end", t.addr);
    key.push_back(static_cast<char>(t.input));
    if (child.node.is_final) {
      ASSIGN_OR_RETURN(bool go_on, emit(child.out + child.node.final_output));
      if (!go_on) return Status::OK();
    }
    stack.push_back(child);
  }
  if (seen != size_) {
    return Status::Corruption(what_ + ": FST holds " + std::to_string(seen) + " keys, its count says " +
                              std::to_string(size_));
  }
  return Status::OK();
}

}  // namespace lancet::index::fst
