// Where tests find the reference peer: the project's harness copy (tests/peer) and the
// install dir its setup.sh fills (node_modules of the pinned LanceDB).
#pragma once

#include <stdlib.h>  // mkdtemp

#include <cstdlib>
#include <filesystem>
#include <string>

namespace lancet::testing {

inline std::string EnvOrDefault(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : fallback;
}

/// The harness scripts (dump.mjs, check.mjs, ...). LANCET_PEER_HARNESS overrides.
inline std::string PeerHarnessDir() {
  return EnvOrDefault("LANCET_PEER_HARNESS", std::string(LANCET_SOURCE_DIR) + "/tests/peer");
}

/// Where setup.sh installed the reference (LANCE_PEER_DIR, as the scripts read it).
inline std::string PeerInstallDir() {
  return EnvOrDefault("LANCE_PEER_DIR", EnvOrDefault("HOME", "/root") + "/.cache/lance-peer");
}

/// A fresh temporary directory named `prefix`-XXXXXX for a test that runs the installed
/// reference, or "" when node or the reference is missing (the test then skips).
inline std::string PeerScratchDir(const std::string& prefix) {
  namespace fs = std::filesystem;
  if (std::system("node --version > /dev/null 2>&1") != 0) return "";
  if (!fs::exists(PeerInstallDir() + "/node_modules/@lancedb/lancedb")) return "";
  std::string tmpl = (fs::temp_directory_path() / (prefix + "-XXXXXX")).string();
  return ::mkdtemp(tmpl.data()) == nullptr ? "" : tmpl;
}

}  // namespace lancet::testing
