// EXPECT_CODE(expr, code): `expr` (a Status or Result) failed with the namespace spec's
// error `code` (catalog::ErrorCodeOf).
#pragma once

#include <gtest/gtest.h>

#include "lancet/catalog/namespace.h"
#include "util/test_macros.h"

#define EXPECT_CODE(expr, code)                                                              \
  do {                                                                                       \
    ::lancet::Status _st = ::lancet::ToStatus(expr);                                         \
    EXPECT_FALSE(_st.ok()) << #expr << " succeeded";                                         \
    EXPECT_EQ(::lancet::catalog::ErrorCodeOf(_st), code) << #expr << ": " << _st.ToString(); \
  } while (0)
