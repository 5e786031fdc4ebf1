// A catalog::Namespace held in memory, for testing what sits above the interface (the
// REST router, its fuzzer) without a storage layout. Locations are
// "<root>/<id joined by $>.lance"; nothing is written or deleted on disk.
#pragma once

#include <algorithm>
#include <map>
#include <mutex>
#include <string>

#include "lancet/catalog/namespace.h"

namespace lancet::catalog::testing {

class MemoryNamespace : public Namespace {
 public:
  explicit MemoryNamespace(std::string root) : root_(std::move(root)) {}

  Result<Page> ListNamespaces(const Id& parent, const PageRequest& page) override {
    std::lock_guard lock(mu_);
    if (!NsExists(parent)) return NamespaceError(ErrorCode::kNamespaceNotFound, JoinId(parent));
    std::vector<std::string> names;
    for (const auto& [id, props] : namespaces_)
      if (IsChild(parent, id)) names.push_back(id.back());
    return Paged(std::move(names), page);
  }
  Result<Properties> CreateNamespace(const Id& id, CreateMode mode, const Properties& properties) override {
    std::lock_guard lock(mu_);
    if (id.empty()) {
      if (mode == CreateMode::kCreate) return NamespaceError(ErrorCode::kNamespaceAlreadyExists, "root");
      return Properties{};
    }
    if (!NsExists(Parent(id))) return NamespaceError(ErrorCode::kNamespaceNotFound, JoinId(Parent(id)));
    auto it = namespaces_.find(id);
    if (it != namespaces_.end()) {
      if (mode == CreateMode::kCreate) return NamespaceError(ErrorCode::kNamespaceAlreadyExists, JoinId(id));
      if (mode == CreateMode::kExistOk) return it->second;
    }
    namespaces_[id] = properties;
    return properties;
  }
  Result<Properties> DescribeNamespace(const Id& id) override {
    std::lock_guard lock(mu_);
    if (id.empty()) return Properties{};
    auto it = namespaces_.find(id);
    if (it == namespaces_.end()) return NamespaceError(ErrorCode::kNamespaceNotFound, JoinId(id));
    return it->second;
  }
  Status DropNamespace(const Id& id, DropMode mode, DropBehavior behavior) override {
    std::lock_guard lock(mu_);
    if (!namespaces_.count(id)) {
      if (mode == DropMode::kSkip) return Status::OK();
      return NamespaceError(ErrorCode::kNamespaceNotFound, JoinId(id));
    }
    const auto under = [&](const Id& other) {
      return other.size() > id.size() && std::equal(id.begin(), id.end(), other.begin());
    };
    bool empty = true;
    for (const auto& [other, p] : namespaces_) empty = empty && !under(other);
    for (const auto& [other, t] : tables_) empty = empty && !under(other);
    if (!empty && behavior == DropBehavior::kRestrict) return NamespaceError(ErrorCode::kNamespaceNotEmpty, JoinId(id));
    std::erase_if(namespaces_, [&](const auto& kv) { return kv.first == id || under(kv.first); });
    std::erase_if(tables_, [&](const auto& kv) { return under(kv.first); });
    return Status::OK();
  }
  Status NamespaceExists(const Id& id) override {
    std::lock_guard lock(mu_);
    return NsExists(id) ? Status::OK() : NamespaceError(ErrorCode::kNamespaceNotFound, JoinId(id));
  }

  Result<Page> ListTables(const Id& parent, const PageRequest& page) override {
    std::lock_guard lock(mu_);
    if (!NsExists(parent)) return NamespaceError(ErrorCode::kNamespaceNotFound, JoinId(parent));
    std::vector<std::string> names;
    for (const auto& [id, t] : tables_)
      if (IsChild(parent, id)) names.push_back(id.back());
    return Paged(std::move(names), page);
  }
  Result<TableInfo> DeclareTable(const Id& id, const Properties& properties) override {
    std::lock_guard lock(mu_);
    if (!NsExists(Parent(id))) return NamespaceError(ErrorCode::kNamespaceNotFound, JoinId(Parent(id)));
    if (tables_.count(id)) return NamespaceError(ErrorCode::kTableAlreadyExists, JoinId(id));
    TableInfo info{root_ + "/" + JoinId(id) + ".lance", properties, true};
    tables_[id] = info;
    return info;
  }
  Result<TableInfo> DescribeTable(const Id& id) override {
    std::lock_guard lock(mu_);
    auto it = tables_.find(id);
    if (it == tables_.end()) return NamespaceError(ErrorCode::kTableNotFound, JoinId(id));
    return it->second;
  }
  Status TableExists(const Id& id) override {
    std::lock_guard lock(mu_);
    return tables_.count(id) ? Status::OK() : NamespaceError(ErrorCode::kTableNotFound, JoinId(id));
  }
  Result<TableInfo> DropTable(const Id& id) override { return Remove(id); }
  Result<TableInfo> RegisterTable(const Id& id, const std::string& location, const Properties& properties) override {
    std::lock_guard lock(mu_);
    if (!NsExists(Parent(id))) return NamespaceError(ErrorCode::kNamespaceNotFound, JoinId(Parent(id)));
    if (tables_.count(id)) return NamespaceError(ErrorCode::kTableAlreadyExists, JoinId(id));
    TableInfo info{location, properties, false};
    tables_[id] = info;
    return info;
  }
  Result<TableInfo> DeregisterTable(const Id& id) override { return Remove(id); }
  Status RenameTable(const Id& id, const Id& new_namespace, const std::string& new_name) override {
    std::lock_guard lock(mu_);
    auto it = tables_.find(id);
    if (it == tables_.end()) return NamespaceError(ErrorCode::kTableNotFound, JoinId(id));
    if (!NsExists(new_namespace)) return NamespaceError(ErrorCode::kNamespaceNotFound, JoinId(new_namespace));
    Id target = new_namespace;
    target.push_back(new_name);
    if (tables_.count(target)) return NamespaceError(ErrorCode::kTableAlreadyExists, JoinId(target));
    TableInfo info = it->second;
    tables_.erase(it);
    tables_[target] = info;
    return Status::OK();
  }

 private:
  static Id Parent(const Id& id) { return Id(id.begin(), id.end() - (id.empty() ? 0 : 1)); }
  static bool IsChild(const Id& parent, const Id& id) {
    return id.size() == parent.size() + 1 && std::equal(parent.begin(), parent.end(), id.begin());
  }
  bool NsExists(const Id& id) const { return id.empty() || namespaces_.count(id) > 0; }
  static Page Paged(std::vector<std::string> names, const PageRequest& page) {
    std::sort(names.begin(), names.end());
    Page out;
    for (std::string& n : names) {
      if (!page.token.empty() && n <= page.token) continue;
      if (page.limit && out.names.size() == *page.limit) {
        out.next_token = out.names.empty() ? "" : out.names.back();
        break;
      }
      out.names.push_back(std::move(n));
    }
    return out;
  }
  Result<TableInfo> Remove(const Id& id) {
    std::lock_guard lock(mu_);
    auto it = tables_.find(id);
    if (it == tables_.end()) return NamespaceError(ErrorCode::kTableNotFound, JoinId(id));
    TableInfo info = it->second;
    tables_.erase(it);
    return info;
  }

  std::string root_;
  std::mutex mu_;
  std::map<Id, Properties> namespaces_;  // not the root
  std::map<Id, TableInfo> tables_;
};

}  // namespace lancet::catalog::testing
