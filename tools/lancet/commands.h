// The lancet subcommands. Each Add*Command adds its CLI11 node under `root` and
// returns how to run it; options live in state owned by the returned function.
#pragma once

#include <CLI/CLI.hpp>

#include "lancet/cli_common.h"

namespace lancet::cli {

Command AddInfoCommand(CLI::App& root);
/// `completion bash|zsh`: a completion script walked from the registered commands.
Command AddCompletionCommand(CLI::App& root);
Command AddScanCommand(CLI::App& root);
Command AddTakeCommand(CLI::App& root);
/// `count DATASET [--where EXPR]`.
Command AddCountCommand(CLI::App& root);
/// `blob get|range|locate`: the group node; running it runs the parsed subcommand.
Command AddBlobCommand(CLI::App& root);
Command AddDumpCommand(CLI::App& root);
Command AddImportCommand(CLI::App& root);
Command AddExportCommand(CLI::App& root);
Command AddIngestCommand(CLI::App& root);
Command AddDeleteCommand(CLI::App& root);
/// `merge DATASET SRC --on K[,K2]`: merge_insert.
Command AddMergeCommand(CLI::App& root);
/// `update DATASET [--where EXPR] --set COL=EXPR...`.
Command AddUpdateCommand(CLI::App& root);
/// `index create|list|drop|optimize DATASET ...`: scalar indexes.
Command AddIndexCommand(CLI::App& root);
/// `tag DATASET create|delete|list`.
Command AddTagCommand(CLI::App& root);
Command AddRestoreCommand(CLI::App& root);
/// `diff DATASET FROM TO`: change records between two versions.
Command AddDiffCommand(CLI::App& root);
Command AddAddColumnsCommand(CLI::App& root);
Command AddCompactCommand(CLI::App& root);
Command AddCleanupCommand(CLI::App& root);
/// `extract`: part of a blob through its media plugin (format 2.3).
Command AddExtractCommand(CLI::App& root);
/// `extract-frame` and `extract-clip`: video frames as PNG and windows as MP4.
Command AddExtractFrameCommand(CLI::App& root);
Command AddExtractClipCommand(CLI::App& root);
/// `extract-audio`: a window of an audio row as WAV (audio plugin).
Command AddExtractAudioCommand(CLI::App& root);
/// `extract-image`: an image page, region or thumbnail as PNG.
Command AddExtractImageCommand(CLI::App& root);
/// `branch create|list|delete|diff DATASET ...`.
Command AddBranchCommand(CLI::App& root);
/// `search DATASET [COLUMN] --vector JSON`: nearest neighbours.
Command AddSearchCommand(CLI::App& root);
/// `clone SRC DST [--version N | --tag T] [--deep]`.
Command AddCloneCommand(CLI::App& root);
/// `ns list|create|describe|drop|tables|register|deregister|drop-table`: the catalog
/// at --namespace URI.
Command AddNsCommand(CLI::App& root);
/// `serve --root DIR [--host H] [--port N] [--token-file F] [--tls-cert F --tls-key F]`:
/// the REST namespace server over a directory namespace.
Command AddServeCommand(CLI::App& root);
/// `iceberg export DATASET TABLE_DIR [--version N | --tag T]`: a version as a new
/// Iceberg v2 table; `iceberg sync DATASET TABLE_DIR`: the changes since as a snapshot.
Command AddIcebergCommand(CLI::App& root);

}  // namespace lancet::cli
