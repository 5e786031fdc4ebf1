// S3Options from the environment, the AWS shared files and LanceDB-style storage options.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>

#include "lancet/io/s3_store.h"

namespace lancet::io {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

Result<bool> ParseBool(const std::string& key, const std::string& value) {
  std::string v = Lower(Trim(value));
  if (v == "true" || v == "1" || v == "yes" || v == "on") return true;
  if (v == "false" || v == "0" || v == "no" || v == "off" || v.empty()) return false;
  return Status::InvalidArgument("storage option " + key + ": '" + value + "' is not a boolean (true/false)");
}

// One section of an INI-style AWS file: "[name]" (credentials) or "[profile name]"
// ("config"; "[default]" there too).
std::map<std::string, std::string> ReadSection(const std::string& path, const std::string& profile, bool config) {
  std::map<std::string, std::string> out;
  std::ifstream in(path);
  if (!in) return out;
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    line = Trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line.front() == '[' && line.back() == ']') {
      std::string name = Trim(line.substr(1, line.size() - 2));
      if (config && name.starts_with("profile ")) name = Trim(name.substr(8));
      inside = name == profile;
      continue;
    }
    if (!inside) continue;
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    out[Lower(Trim(line.substr(0, eq)))] = Trim(line.substr(eq + 1));
  }
  return out;
}

// object_store's duration syntax, as far as storage options use it: "30s", "500ms".
Result<int64_t> ParseDurationMs(const std::string& key, const std::string& value) {
  std::string v = Lower(Trim(value));
  size_t digits = 0;
  while (digits < v.size() && (std::isdigit(static_cast<unsigned char>(v[digits])) || v[digits] == '.')) ++digits;
  std::string unit = Trim(v.substr(digits));
  double scale = unit.empty() || unit == "s" || unit == "sec" || unit == "secs" || unit == "seconds" ? 1000
                 : unit == "ms"                                                                      ? 1
                 : unit == "m" || unit == "min" || unit == "minutes"                                 ? 60000
                 : unit == "h" || unit == "hours"                                                    ? 3600000
                                                                                                     : -1;
  char* end = nullptr;
  std::string number = v.substr(0, digits);
  double n = number.empty() ? -1 : std::strtod(number.c_str(), &end);
  if (scale < 0 || n < 0 || end != number.c_str() + number.size() || n * scale > 1e12) {
    return Status::InvalidArgument("storage option " + key + ": '" + value +
                                   "' is not a duration (e.g. 500ms, 30s, 2m)");
  }
  return static_cast<int64_t>(n * scale);
}

Result<int> ParseCount(const std::string& key, const std::string& value) {
  std::string v = Trim(value);
  char* end = nullptr;
  long n = v.empty() ? -1 : std::strtol(v.c_str(), &end, 10);
  if (n < 0 || n > 1000 || end != v.c_str() + v.size()) {
    return Status::InvalidArgument("storage option " + key + ": '" + value + "' is not a count from 0 to 1000");
  }
  return static_cast<int>(n);
}

}  // namespace

Result<S3Options> S3OptionsFrom(const StorageOptions& overrides) {
  S3Options o;
  // Lowest precedence first: the shared files of AWS_PROFILE, then the environment,
  // then explicit options.
  std::string home = Env("HOME");
  std::string profile = Env("AWS_PROFILE");
  const bool explicit_profile = !profile.empty();
  if (profile.empty()) profile = "default";
  std::string cred_file = Env("AWS_SHARED_CREDENTIALS_FILE");
  if (cred_file.empty() && !home.empty()) cred_file = home + "/.aws/credentials";
  std::string config_file = Env("AWS_CONFIG_FILE");
  if (config_file.empty() && !home.empty()) config_file = home + "/.aws/config";
  auto creds = ReadSection(cred_file, profile, false);
  auto config = ReadSection(config_file, profile, true);
  if (explicit_profile && creds.empty() && config.empty()) {
    return Status::InvalidArgument("AWS_PROFILE '" + profile + "' is in neither " + cred_file + " nor " + config_file);
  }
  auto take = [](std::map<std::string, std::string>& m, const char* k, std::string* dst) {
    auto it = m.find(k);
    if (it != m.end() && !it->second.empty()) *dst = it->second;
  };
  for (auto* m : {&config, &creds}) {
    take(*m, "aws_access_key_id", &o.access_key_id);
    take(*m, "aws_secret_access_key", &o.secret_access_key);
    take(*m, "aws_session_token", &o.session_token);
    take(*m, "region", &o.region);
    take(*m, "endpoint_url", &o.endpoint);
  }

  auto env = [](const char* name, std::string* dst) {
    std::string v = Env(name);
    if (!v.empty()) *dst = v;
  };
  if (!Env("AWS_ACCESS_KEY_ID").empty()) {
    // Keys from the environment come as a set: a profile's token must not pair with them.
    o.session_token.clear();
  }
  env("AWS_ACCESS_KEY_ID", &o.access_key_id);
  env("AWS_SECRET_ACCESS_KEY", &o.secret_access_key);
  env("AWS_SESSION_TOKEN", &o.session_token);
  env("AWS_DEFAULT_REGION", &o.region);
  env("AWS_REGION", &o.region);
  env("AWS_ENDPOINT_URL", &o.endpoint);
  env("AWS_ENDPOINT_URL_S3", &o.endpoint);
  if (std::string v = Env("AWS_ALLOW_HTTP"); !v.empty()) {
    ASSIGN_OR_RETURN(o.allow_http, ParseBool("AWS_ALLOW_HTTP", v));
  }
  if (std::string v = Env("AWS_VIRTUAL_HOSTED_STYLE_REQUEST"); !v.empty()) {
    ASSIGN_OR_RETURN(o.virtual_hosted_style, ParseBool("AWS_VIRTUAL_HOSTED_STYLE_REQUEST", v));
  }

  for (const auto& [raw_key, value] : overrides) {
    const std::string key = Lower(raw_key);
    if (key == "aws_access_key_id" || key == "access_key_id") {
      o.access_key_id = value;
    } else if (key == "aws_secret_access_key" || key == "secret_access_key") {
      o.secret_access_key = value;
    } else if (key == "aws_session_token" || key == "session_token" || key == "aws_token") {
      o.session_token = value;
    } else if (key == "aws_endpoint" || key == "aws_endpoint_url" || key == "endpoint") {
      o.endpoint = value;
    } else if (key == "aws_region" || key == "region" || key == "aws_default_region") {
      o.region = value;
    } else if (key == "allow_http" || key == "aws_allow_http") {
      ASSIGN_OR_RETURN(o.allow_http, ParseBool(raw_key, value));
    } else if (key == "aws_virtual_hosted_style_request" || key == "virtual_hosted_style_request") {
      ASSIGN_OR_RETURN(o.virtual_hosted_style, ParseBool(raw_key, value));
    } else if (key == "timeout") {
      ASSIGN_OR_RETURN(int64_t ms, ParseDurationMs(raw_key, value));
      o.request_timeout_ms = static_cast<long>(ms);
    } else if (key == "connect_timeout") {
      ASSIGN_OR_RETURN(int64_t ms, ParseDurationMs(raw_key, value));
      o.connect_timeout_ms = static_cast<long>(std::max<int64_t>(ms, 1));
    } else if (key == "client_retry_timeout") {
      ASSIGN_OR_RETURN(o.retry_budget_ms, ParseDurationMs(raw_key, value));
    } else if (key == "client_max_retries") {
      ASSIGN_OR_RETURN(o.max_retries, ParseCount(raw_key, value));
    } else if (key.starts_with("aws_")) {
      return Status::InvalidArgument("unknown storage option '" + raw_key + "'");
    }
    // Other keys (client options of other stores) are not ours to refuse.
  }
  if (o.region.empty()) o.region = "us-east-1";
  return o;
}

}  // namespace lancet::io
