#include "io/s3_xml.h"

#include <charconv>
#include <cstdint>
#include <ctime>

namespace lancet::io::s3 {

std::vector<std::string_view> XmlElements(std::string_view doc, std::string_view tag) {
  std::vector<std::string_view> out;
  const std::string open = "<" + std::string(tag);
  const std::string close = "</" + std::string(tag) + ">";
  size_t pos = 0;
  while ((pos = doc.find(open, pos)) != std::string_view::npos) {
    size_t after = pos + open.size();
    if (after >= doc.size()) break;
    // "<Key>" or "<Key attr=...>", not "<KeyCount>".
    if (doc[after] != '>' && doc[after] != ' ') {
      pos = after;
      continue;
    }
    size_t gt = doc.find('>', after);
    if (gt == std::string_view::npos) break;
    if (doc[gt - 1] == '/') {  // <Tag/>
      out.push_back(std::string_view());
      pos = gt + 1;
      continue;
    }
    size_t end = doc.find(close, gt + 1);
    if (end == std::string_view::npos) break;
    out.push_back(doc.substr(gt + 1, end - gt - 1));
    pos = end + close.size();
  }
  return out;
}

bool XmlClosed(std::string_view doc, std::string_view root) {
  const std::string name(root);
  if (doc.find("</" + name + ">") != std::string_view::npos) return true;
  const size_t open = doc.find("<" + name);
  if (open == std::string_view::npos) return false;
  const size_t close = doc.find('>', open);
  return close != std::string_view::npos && doc[close - 1] == '/';
}

std::optional<std::string> XmlText(std::string_view doc, std::string_view tag) {
  auto all = XmlElements(doc, tag);
  if (all.empty()) return std::nullopt;
  return XmlDecode(all.front());
}

std::string XmlDecode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out.push_back(s[i]);
      continue;
    }
    size_t semi = s.find(';', i);
    if (semi == std::string_view::npos) {
      out.push_back(s[i]);
      continue;
    }
    std::string_view ent = s.substr(i + 1, semi - i - 1);
    if (ent == "amp")
      out.push_back('&');
    else if (ent == "lt")
      out.push_back('<');
    else if (ent == "gt")
      out.push_back('>');
    else if (ent == "quot")
      out.push_back('"');
    else if (ent == "apos")
      out.push_back('\'');
    else if (ent.size() > 1 && ent[0] == '#') {
      uint32_t cp = 0;
      bool hex = ent[1] == 'x' || ent[1] == 'X';
      std::string_view digits = ent.substr(hex ? 2 : 1);
      auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), cp, hex ? 16 : 10);
      if (ec != std::errc() || p != digits.data() + digits.size()) {
        out.append(s.substr(i, semi - i + 1));
      } else if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
      } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
      } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
      } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
      }
    } else {
      out.append(s.substr(i, semi - i + 1));
    }
    i = semi;
  }
  return out;
}

std::string XmlEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '"')
      out += "&quot;";
    else
      out.push_back(c);
  }
  return out;
}

std::optional<int64_t> ParseIsoTimeMs(std::string_view s) {
  std::tm tm{};
  int ms = 0;
  auto num = [&](size_t at, size_t len, int* v) {
    if (at + len > s.size()) return false;
    auto [p, ec] = std::from_chars(s.data() + at, s.data() + at + len, *v);
    return ec == std::errc() && p == s.data() + at + len;
  };
  int year = 0, mon = 0;
  if (!num(0, 4, &year) || !num(5, 2, &mon) || !num(8, 2, &tm.tm_mday) || !num(11, 2, &tm.tm_hour) ||
      !num(14, 2, &tm.tm_min) || !num(17, 2, &tm.tm_sec)) {
    return std::nullopt;
  }
  if (s.size() >= 23 && s[19] == '.') (void)num(20, 3, &ms);
  tm.tm_year = year - 1900;
  tm.tm_mon = mon - 1;
  return int64_t{timegm(&tm)} * 1000 + ms;
}

}  // namespace lancet::io::s3
