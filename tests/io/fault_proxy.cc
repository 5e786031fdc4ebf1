// fault_proxy: a fault-injecting HTTP/1.1 proxy on 127.0.0.1 for the S3 fault tests.
//
//   fault_proxy HOST:PORT
//     Listens on an ephemeral loopback port, prints it on stdout and forwards every
//     request to HOST:PORT (one request per client connection, so a dropped connection
//     is never hidden by curl's silent resend on a reused one). Exits when stdin closes,
//     so a test that dies takes its proxy with it.
//
// Control requests (answered by the proxy itself, never forwarded):
//   GET /__fault/add?method=M&path=P&query=Q&action=A&arg=N&code=C&skip=S&count=K
//     Adds a rule: requests with method M (any if empty) whose path contains P and whose
//     query contains Q pass through S times, then the next K (-1: all) get action A:
//       status    answer HTTP N with S3 error code C, without forwarding
//       drop      close the connection without forwarding
//       lose      forward, then close without answering (the answer is lost)
//       truncate  forward, answer the head unchanged and N body bytes, then close
//       short     forward, answer with Content-Length N and the first N body bytes
//       stall     say nothing for N ms, then close without forwarding
//     Answers the rule's id.
//   GET /__fault/hits?id=I   how often rule I fired
//   GET /__fault/log         "METHOD TARGET" of every forwarded or faulted request
//   GET /__fault/clear       removes all rules and the log
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Rule {
  int id = 0;
  std::string method, path, query, action, code;
  long arg = 0;
  long skip = 0;
  long count = -1;
  long hits = 0;
};

std::mutex mu;
std::vector<Rule> rules;
std::vector<std::string> request_log;
int next_id = 1;
sockaddr_in upstream{};

// Caps what one message may hold, so a confused peer cannot grow the proxy unboundedly.
constexpr size_t kMaxMessage = 64u << 20;

bool SendAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}
bool SendAll(int fd, const std::string& s) { return SendAll(fd, s.data(), s.size()); }

// Reads more bytes into buf; false at EOF, error or after timeout_ms of silence.
bool ReadMore(int fd, std::string* buf, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, timeout_ms) <= 0) return false;
  char tmp[65536];
  ssize_t n = ::recv(fd, tmp, sizeof(tmp), 0);
  if (n <= 0) return false;
  buf->append(tmp, static_cast<size_t>(n));
  return buf->size() <= kMaxMessage;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The value of header `name` (lower-case) in an HTTP head, or "".
std::string HeaderValue(const std::string& head, const std::string& name) {
  size_t pos = 0;
  while ((pos = head.find("\r\n", pos)) != std::string::npos) {
    pos += 2;
    size_t colon = head.find(':', pos);
    size_t eol = head.find("\r\n", pos);
    if (colon == std::string::npos || (eol != std::string::npos && colon > eol)) continue;
    if (Lower(head.substr(pos, colon - pos)) == name) {
      size_t b = head.find_first_not_of(' ', colon + 1);
      return head.substr(b, (eol == std::string::npos ? head.size() : eol) - b);
    }
  }
  return "";
}

// Reads one message head (through the blank line) and its body into head/body.
// The body is framed by Content-Length, chunked encoding, or (responses) EOF.
bool ReadMessage(int fd, std::string* buf, std::string* head, std::string* body, bool response, bool no_body,
                 int timeout_ms) {
  size_t end;
  while ((end = buf->find("\r\n\r\n")) == std::string::npos) {
    if (!ReadMore(fd, buf, timeout_ms)) return false;
  }
  *head = buf->substr(0, end + 4);
  buf->erase(0, end + 4);
  body->clear();
  if (no_body) return true;
  const std::string length = HeaderValue(*head, "content-length");
  if (!length.empty()) {
    size_t n = std::strtoull(length.c_str(), nullptr, 10);
    if (n > kMaxMessage) return false;
    while (buf->size() < n) {
      if (!ReadMore(fd, buf, timeout_ms)) return false;
    }
    *body = buf->substr(0, n);
    buf->erase(0, n);
    return true;
  }
  if (Lower(HeaderValue(*head, "transfer-encoding")).find("chunked") != std::string::npos) {
    // Kept encoded: the client decodes it. Ends with the zero-size chunk and its CRLF.
    size_t at = 0;
    while (true) {
      size_t eol;
      while ((eol = buf->find("\r\n", at)) == std::string::npos) {
        if (!ReadMore(fd, buf, timeout_ms)) return false;
      }
      size_t size = std::strtoull(buf->substr(at, eol - at).c_str(), nullptr, 16);
      size_t need = eol + 2 + size + 2;
      while (buf->size() < need) {
        if (!ReadMore(fd, buf, timeout_ms)) return false;
      }
      at = need;
      if (size == 0) break;
    }
    *body = buf->substr(0, at);
    buf->erase(0, at);
    return true;
  }
  if (!response) return true;
  while (ReadMore(fd, buf, timeout_ms)) {
  }
  *body = std::move(*buf);
  buf->clear();
  return true;
}

std::string QueryParam(const std::string& query, const std::string& name) {
  size_t pos = 0;
  while (pos <= query.size()) {
    size_t amp = query.find('&', pos);
    if (amp == std::string::npos) amp = query.size();
    std::string kv = query.substr(pos, amp - pos);
    size_t eq = kv.find('=');
    if (kv.substr(0, eq) == name) return eq == std::string::npos ? "" : kv.substr(eq + 1);
    pos = amp + 1;
  }
  return "";
}

std::string Control(const std::string& path, const std::string& query) {
  std::lock_guard<std::mutex> lock(mu);
  if (path == "/__fault/add") {
    Rule r;
    r.id = next_id++;
    r.method = QueryParam(query, "method");
    r.path = QueryParam(query, "path");
    r.query = QueryParam(query, "query");
    r.action = QueryParam(query, "action");
    r.code = QueryParam(query, "code");
    r.arg = std::atol(QueryParam(query, "arg").c_str());
    r.skip = std::atol(QueryParam(query, "skip").c_str());
    std::string count = QueryParam(query, "count");
    r.count = count.empty() ? -1 : std::atol(count.c_str());
    rules.push_back(r);
    return std::to_string(r.id);
  }
  if (path == "/__fault/hits") {
    int id = std::atoi(QueryParam(query, "id").c_str());
    for (const Rule& r : rules) {
      if (r.id == id) return std::to_string(r.hits);
    }
    return "-1";
  }
  if (path == "/__fault/log") {
    std::string out;
    for (const std::string& l : request_log) out += l + "\n";
    return out;
  }
  if (path == "/__fault/clear") {
    rules.clear();
    request_log.clear();
    return "ok";
  }
  return "unknown control request";
}

// The fault for one request (empty action: none), counting it against its rule.
Rule Match(const std::string& method, const std::string& path, const std::string& query) {
  std::lock_guard<std::mutex> lock(mu);
  request_log.push_back(method + " " + path + (query.empty() ? "" : "?" + query));
  for (Rule& r : rules) {
    if (!r.method.empty() && r.method != method) continue;
    if (path.find(r.path) == std::string::npos || query.find(r.query) == std::string::npos) continue;
    if (r.skip > 0) {
      --r.skip;
      continue;
    }
    if (r.count == 0) continue;
    if (r.count > 0) --r.count;
    ++r.hits;
    return r;
  }
  return Rule{};
}

// Forwards one request and reads the whole answer; false if upstream failed.
bool Forward(const std::string& head, const std::string& body, bool head_request, std::string* rhead,
             std::string* rbody) {
  int up = ::socket(AF_INET, SOCK_STREAM, 0);
  if (up < 0) return false;
  int one = 1;
  ::setsockopt(up, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  bool ok = ::connect(up, reinterpret_cast<const sockaddr*>(&upstream), sizeof(upstream)) == 0;
  // One request per upstream connection too: the answer is framed by its length or EOF.
  std::string out = head.substr(0, head.size() - 2) + "Connection: close\r\n\r\n" + body;
  ok = ok && SendAll(up, out);
  std::string buf;
  ok = ok && ReadMessage(up, &buf, rhead, rbody, true, head_request, 60000);
  ::close(up);
  return ok;
}

// `head` with Connection: close, and Content-Length replaced by `length` unless negative.
std::string RewriteHead(const std::string& head, long length) {
  std::string out;
  size_t pos = 0;
  while (pos < head.size()) {
    size_t eol = head.find("\r\n", pos);
    if (eol == std::string::npos) eol = head.size();
    std::string line = head.substr(pos, eol - pos);
    pos = eol + 2;
    if (line.empty()) continue;
    const std::string lower = Lower(line);
    if (lower.starts_with("connection:")) continue;
    // A fixed length replaces chunking too, so the client sees a well-formed short answer.
    if (length >= 0 && (lower.starts_with("content-length:") || lower.starts_with("transfer-encoding:"))) continue;
    out += line + "\r\n";
  }
  if (length >= 0) out += "Content-Length: " + std::to_string(length) + "\r\n";
  return out + "Connection: close\r\n\r\n";
}

void Serve(int c) {
  std::string buf, head, body;
  if (!ReadMessage(c, &buf, &head, &body, false, false, 30000)) return;
  const size_t sp1 = head.find(' ');
  const size_t sp2 = head.find(' ', sp1 + 1);
  if (sp1 == std::string::npos || sp2 == std::string::npos) return;
  const std::string method = head.substr(0, sp1);
  const std::string target = head.substr(sp1 + 1, sp2 - sp1 - 1);
  const size_t q = target.find('?');
  const std::string path = target.substr(0, q);
  const std::string query = q == std::string::npos ? "" : target.substr(q + 1);
  if (path.starts_with("/__fault/")) {
    std::string answer = Control(path, query);
    SendAll(c, "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(answer.size()) + "\r\nConnection: close\r\n\r\n" +
                   answer);
    return;
  }
  const Rule fault = Match(method, path, query);
  const std::string& a = fault.action;
  if (a == "drop") return;
  if (a == "stall") {
    std::this_thread::sleep_for(std::chrono::milliseconds(fault.arg));
    return;
  }
  if (a == "status") {
    std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + fault.code +
                      "</Code><Message>injected by fault_proxy</Message></Error>";
    SendAll(c, "HTTP/1.1 " + std::to_string(fault.arg) + " Injected\r\nContent-Type: application/xml\r\n" +
                   "Content-Length: " + std::to_string(xml.size()) + "\r\nConnection: close\r\n\r\n" +
                   (method == "HEAD" ? "" : xml));
    return;
  }
  std::string rhead, rbody;
  if (!Forward(head, body, method == "HEAD", &rhead, &rbody)) return;
  if (a == "lose") return;
  if (a == "truncate") {
    SendAll(c,
            RewriteHead(rhead, -1) + rbody.substr(0, std::min<size_t>(rbody.size(), static_cast<size_t>(fault.arg))));
    return;
  }
  // Every answer closes its connection, so the client never reuses one (and never
  // resends on it behind the caller's back).
  const bool cut = a == "short";
  const size_t n = cut ? std::min<size_t>(rbody.size(), static_cast<size_t>(fault.arg)) : rbody.size();
  SendAll(c, RewriteHead(rhead, cut ? static_cast<long>(n) : -1) + rbody.substr(0, n));
}

bool ParseUpstream(const std::string& spec) {
  std::string s = spec;
  if (s.starts_with("http://")) s = s.substr(7);
  while (!s.empty() && s.back() == '/') s.pop_back();
  size_t colon = s.rfind(':');
  if (colon == std::string::npos) return false;
  upstream.sin_family = AF_INET;
  upstream.sin_port = htons(static_cast<uint16_t>(std::atoi(s.c_str() + colon + 1)));
  std::string host = s.substr(0, colon);
  if (host == "localhost") host = "127.0.0.1";
  return ::inet_pton(AF_INET, host.c_str(), &upstream.sin_addr) == 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 || !ParseUpstream(argv[1])) {
    std::fprintf(stderr, "usage: fault_proxy [http://]IPV4:PORT\n");
    return 2;
  }
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || ::listen(fd, 128) != 0) {
    std::perror("fault_proxy: bind");
    return 1;
  }
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  std::printf("%d\n", ntohs(addr.sin_port));
  std::fflush(stdout);
  std::thread([] {
    char c;
    while (::read(0, &c, 1) > 0) {
    }
    std::_Exit(0);
  }).detach();
  while (true) {
    int c = ::accept(fd, nullptr, nullptr);
    if (c < 0) continue;
    ::setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    std::thread([c] {
      Serve(c);
      ::close(c);
    }).detach();
  }
}
