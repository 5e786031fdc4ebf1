#include "io/s3_sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <ctime>

namespace lancet::io::s3 {
namespace {

using Digest = std::array<uint8_t, 32>;

std::string Hex(std::span<const uint8_t> bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (uint8_t b : bytes) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

Digest Hmac(std::span<const uint8_t> key, std::string_view data) {
  Digest out{};
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const uint8_t*>(data.data()),
       data.size(), out.data(), &len);
  return out;
}

std::span<const uint8_t> AsBytes(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Header values are signed trimmed, with runs of spaces folded to one.
std::string CanonicalValue(std::string_view v) {
  std::string out;
  bool space = false;
  for (char c : v) {
    if (c == ' ' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

}  // namespace

std::string UriEncode(std::string_view s, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    bool unreserved = std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~';
    if (unreserved || (keep_slash && c == '/')) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string CanonicalQuery(const HeaderList& query) {
  std::vector<std::pair<std::string, std::string>> enc;
  enc.reserve(query.size());
  for (const auto& [k, v] : query) enc.emplace_back(UriEncode(k, false), UriEncode(v, false));
  std::sort(enc.begin(), enc.end());
  std::string out;
  for (const auto& [k, v] : enc) {
    if (!out.empty()) out.push_back('&');
    out += k;
    out.push_back('=');
    out += v;
  }
  return out;
}

std::string Sha256Hex(std::span<const uint8_t> bytes) {
  Digest d{};
  SHA256(bytes.data(), bytes.size(), d.data());
  return Hex(d);
}

std::string AmzDate(int64_t unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[20];
  std::strftime(buf, sizeof(buf), "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

SignOutput SignV4(const SignInput& in, const Credentials& creds, std::string_view region, std::string_view service,
                  std::string_view amz_date) {
  // Headers: lower-case names, sorted; repeated names join their values with ','.
  std::vector<std::pair<std::string, std::string>> headers;
  for (const auto& [k, v] : in.headers) headers.emplace_back(Lower(k), CanonicalValue(v));
  std::stable_sort(headers.begin(), headers.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string canonical_headers, signed_headers;
  for (size_t i = 0; i < headers.size(); ++i) {
    if (i > 0 && headers[i].first == headers[i - 1].first) {
      canonical_headers.back() = ',';
      canonical_headers += headers[i].second + "\n";
      continue;
    }
    canonical_headers += headers[i].first + ":" + headers[i].second + "\n";
    if (!signed_headers.empty()) signed_headers.push_back(';');
    signed_headers += headers[i].first;
  }

  SignOutput out;
  out.signed_headers = signed_headers;
  out.canonical_request = in.method + "\n" + UriEncode(in.path.empty() ? "/" : in.path, true) + "\n" +
                          CanonicalQuery(in.query) + "\n" + canonical_headers + "\n" + signed_headers + "\n" +
                          in.payload_hash;
  const std::string date(amz_date.substr(0, 8));
  const std::string scope = date + "/" + std::string(region) + "/" + std::string(service) + "/aws4_request";
  out.string_to_sign =
      "AWS4-HMAC-SHA256\n" + std::string(amz_date) + "\n" + scope + "\n" + Sha256Hex(out.canonical_request);
  const std::string secret = "AWS4" + creds.secret_access_key;
  Digest k = Hmac(AsBytes(secret), date);
  k = Hmac(k, region);
  k = Hmac(k, service);
  k = Hmac(k, "aws4_request");
  out.signature = Hex(Hmac(k, out.string_to_sign));
  out.authorization = "AWS4-HMAC-SHA256 Credential=" + creds.access_key_id + "/" + scope +
                      ", SignedHeaders=" + signed_headers + ", Signature=" + out.signature;
  return out;
}

std::string Md5Base64(std::span<const uint8_t> bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &len, EVP_md5(), nullptr);
  unsigned char out[4 * ((EVP_MAX_MD_SIZE + 2) / 3) + 1];
  int n = EVP_EncodeBlock(out, digest, static_cast<int>(len));
  return std::string(reinterpret_cast<const char*>(out), static_cast<size_t>(n));
}

}  // namespace lancet::io::s3
