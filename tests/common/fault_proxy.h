// A tests/io/fault_proxy process between a test and the S3 server (AWS_ENDPOINT_URL),
// and its control requests. The path of the binary comes as LANCET_FAULT_PROXY.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace lancet::testing {

/// One rule: see tests/io/fault_proxy.cc for the actions.
struct Fault {
  std::string method;  // empty: any
  std::string path;    // substring of the request path ("/bucket/key")
  std::string query;   // substring of the query string
  std::string action;  // status, drop, lose, truncate, short, stall
  long arg = 0;        // status code, byte count or milliseconds
  std::string code;    // S3 error code for status
  long skip = 0;       // matching requests let through first
  long count = -1;     // then this many faulted; -1: all
};

class FaultProxy {
 public:
  FaultProxy() {
    const char* upstream = std::getenv("AWS_ENDPOINT_URL");
    int out[2], in[2];
    if (upstream == nullptr || ::pipe(out) != 0 || ::pipe(in) != 0) {
      ADD_FAILURE() << "cannot start fault_proxy";
      return;
    }
    std::string exe = LANCET_FAULT_PROXY, up = upstream;
    char* argv[] = {exe.data(), up.data(), nullptr};
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(in[0], 0);
      ::dup2(out[1], 1);
      ::close(in[1]);
      ::close(out[0]);
      ::execv(argv[0], argv);
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    stdin_ = in[1];
    // Later children (writers a test forks) must not hold the pipe open.
    ::fcntl(stdin_, F_SETFD, FD_CLOEXEC);
    std::string line;
    char c;
    while (::read(out[0], &c, 1) == 1 && c != '\n') line.push_back(c);
    ::close(out[0]);
    port_ = std::atoi(line.c_str());
    EXPECT_GT(port_, 0) << "fault_proxy printed no port";
  }
  ~FaultProxy() {
    if (pid_ <= 0) return;
    ::close(stdin_);  // the proxy exits when its stdin closes
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;

  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }

  /// Adds a rule; returns its id.
  int Add(const Fault& f) {
    return std::atoi(Control("/__fault/add?method=" + f.method + "&path=" + f.path + "&query=" + f.query +
                             "&action=" + f.action + "&arg=" + std::to_string(f.arg) + "&code=" + f.code +
                             "&skip=" + std::to_string(f.skip) + "&count=" + std::to_string(f.count))
                         .c_str());
  }
  long Hits(int id) { return std::atol(Control("/__fault/hits?id=" + std::to_string(id)).c_str()); }
  void Clear() { Control("/__fault/clear"); }
  /// "METHOD /path?query" of every request the proxy saw since the last Clear.
  std::vector<std::string> Log() {
    std::vector<std::string> lines;
    std::string all = Control("/__fault/log");
    for (size_t pos = 0, nl; (nl = all.find('\n', pos)) != std::string::npos; pos = nl + 1) {
      lines.push_back(all.substr(pos, nl - pos));
    }
    return lines;
  }
  /// Requests seen with `method` whose line contains `part`.
  size_t Count(const std::string& method, const std::string& part = "") {
    size_t n = 0;
    for (const std::string& l : Log()) n += l.starts_with(method + " ") && l.find(part) != std::string::npos;
    return n;
  }

 private:
  // The body of the proxy's answer to GET `target` (it closes every connection).
  std::string Control(const std::string& target) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port_));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    std::string answer;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
      std::string req = "GET " + target + " HTTP/1.1\r\nHost: proxy\r\n\r\n";
      if (::send(fd, req.data(), req.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(req.size())) {
        char buf[65536];
        ssize_t n;
        while ((n = ::recv(fd, buf, sizeof(buf), 0)) > 0) answer.append(buf, static_cast<size_t>(n));
      }
    }
    ::close(fd);
    size_t body = answer.find("\r\n\r\n");
    EXPECT_NE(body, std::string::npos) << "fault_proxy did not answer " << target;
    return body == std::string::npos ? "" : answer.substr(body + 4);
  }

  pid_t pid_ = -1;
  int stdin_ = -1;
  int port_ = 0;
};

}  // namespace lancet::testing
