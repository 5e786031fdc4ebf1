// One example per command at the end of its --help: the shortest way from reading the
// options to a working command line. tests/tools/help_examples_test.cc runs each example
// (it must parse) and checks that every command has one.
#include "lancet/help_examples.h"

#include <CLI/CLI.hpp>

#include <map>
#include <string>

namespace lancet::cli {
namespace {

const std::map<std::string, std::string>& Examples() {
  static const std::map<std::string, std::string> examples = {
      {"info", "lancet info clips.lance --no-encodings"},
      {"scan", "lancet scan clips.lance --where \"kind = 'drone'\" --columns id,caption --format json"},
      {"take", "lancet take clips.lance --rows 0,2 --columns id,caption"},
      {"count", "lancet count clips.lance --where \"id < 100\""},
      {"dump", "lancet dump clips.lance --all-versions --out clips.json"},
      {"import", "lancet import rows.ndjson clips.lance --schema schema.json --blob image"},
      {"export", "lancet export clips.lance clips.parquet --columns id,caption --where \"id < 100\""},
      {"ingest",
       "lancet ingest videos clips.lance --glob '*.mp4' --column video --media "
       "video=plugins/liblancet_video_ffmpeg.so"},
      {"delete", "lancet delete clips.lance --where \"caption IS NULL\""},
      {"update", "lancet update clips.lance --where \"id = 2\" --set \"caption = 'boats at dawn'\""},
      {"merge", "lancet merge clips.lance changes.ndjson --schema schema.json --on id --when-not-matched insert"},
      {"diff", "lancet diff clips.lance 3 4 --format json --old-values"},
      {"tag create", "lancet tag create clips.lance reviewed"},
      {"tag delete", "lancet tag delete clips.lance reviewed"},
      {"tag list", "lancet tag list clips.lance"},
      {"restore", "lancet restore clips.lance 3"},
      {"add-columns", "lancet add-columns clips.lance labels.ndjson --schema labels.schema.json"},
      {"compact", "lancet compact clips.lance --target-rows 1048576"},
      {"cleanup", "lancet cleanup clips.lance --older-than 7d"},
      {"extract", "lancet extract clips.lance blob 0 1 --plugin plugins/liblancet_chunks.so --request chunks=0-2"},
      {"extract-frame", "lancet extract-frame clips.lance --row 0 --window 1.0:1.4 --out frames/%04d.png"},
      {"extract-clip", "lancet extract-clip clips.lance --row 1 --window 1:2 --out clip.mp4"},
      {"extract-audio", "lancet extract-audio talks.lance --row 0 --window 10:15 --out part.wav"},
      {"extract-image", "lancet extract-image scans.lance --row 0 --page 1 --thumbnail 320 --out page.png"},
      {"blob get", "lancet blob get clips.lance image 1 --out image.png"},
      {"blob range", "lancet blob range clips.lance video 0 --offset 0 --length 4096 --out head.bin"},
      {"blob locate", "lancet blob locate clips.lance video 0 1 2 --json"},
      {"branch create", "lancet branch create clips.lance relabel"},
      {"branch list", "lancet branch list clips.lance"},
      {"branch delete", "lancet branch delete clips.lance relabel"},
      {"branch diff", "lancet branch diff clips.lance relabel --format json"},
      {"clone", "lancet clone clips.lance copy.lance --tag reviewed"},
      {"index create", "lancet index create clips.lance kind --type bitmap"},
      {"index list", "lancet index list clips.lance"},
      {"index drop", "lancet index drop clips.lance kind_idx"},
      {"index optimize", "lancet index optimize clips.lance"},
      {"search", "lancet search clips.lance embedding --vector '[0.1, 0.2, 0.3, 0.4]' -k 5 --where \"kind = 'drone'\""},
      {"ns list", "lancet --namespace warehouse ns list"},
      {"ns tables", "lancet --namespace warehouse ns tables team1"},
      {"ns create", "lancet --namespace warehouse ns create team1 --property owner=ml"},
      {"ns describe", "lancet --namespace warehouse ns describe team1"},
      {"ns drop", "lancet --namespace warehouse ns drop team1 --cascade"},
      {"ns register", "lancet --namespace warehouse ns register team1.clips /data/clips.lance"},
      {"ns deregister", "lancet --namespace warehouse ns deregister team1.clips"},
      {"ns drop-table", "lancet --namespace warehouse ns drop-table team1.clips"},
      {"ns declare", "lancet --namespace warehouse ns declare team1.clips"},
      {"serve", "lancet serve --root warehouse --port 2333"},
      {"iceberg export", "lancet iceberg export clips.lance iceberg/clips"},
      {"iceberg sync", "lancet iceberg sync clips.lance iceberg/clips"},
      {"completion", "source <(lancet completion bash)"},
  };
  return examples;
}

void Walk(CLI::App& app, const std::string& path) {
  for (CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    const std::string sub_path = path.empty() ? sub->get_name() : path + " " + sub->get_name();
    auto it = Examples().find(sub_path);
    if (it != Examples().end()) {
      const std::string& footer = sub->get_footer();
      sub->footer(footer + (footer.empty() ? "" : "\n\n") + "Example:\n  " + it->second);
    }
    Walk(*sub, sub_path);
  }
}

}  // namespace

void AddHelpExamples(CLI::App& root) { Walk(root, ""); }

const std::map<std::string, std::string>& HelpExamples() { return Examples(); }

}  // namespace lancet::cli
