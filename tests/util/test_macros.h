// gtest helpers for Status and Result.
#pragma once

#include <gtest/gtest.h>

#include "lancet/result.h"
#include "lancet/status.h"

#define ASSERT_OK(expr)                                              \
  do {                                                               \
    ::lancet::Status _st = ::lancet::ToStatus(expr);                 \
    ASSERT_TRUE(_st.ok()) << #expr << " failed: " << _st.ToString(); \
  } while (0)

#define EXPECT_OK(expr)                                              \
  do {                                                               \
    ::lancet::Status _st = ::lancet::ToStatus(expr);                 \
    EXPECT_TRUE(_st.ok()) << #expr << " failed: " << _st.ToString(); \
  } while (0)

#define LANCET_TEST_ASSIGN_IMPL(tmp, lhs, rexpr)                                 \
  auto tmp = (rexpr);                                                            \
  ASSERT_TRUE(tmp.ok()) << #rexpr << " failed: " << tmp.status().ToString();     \
  lhs = std::move(tmp).value();

/// `ASSERT_OK_AND_ASSIGN(auto x, F());` in a test body.
#define ASSERT_OK_AND_ASSIGN(lhs, rexpr) \
  LANCET_TEST_ASSIGN_IMPL(LANCET_CONCAT(_lancet_t_, __LINE__), lhs, rexpr)
