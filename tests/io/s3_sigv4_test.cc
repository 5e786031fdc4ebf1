// SigV4 against AWS's published test suite (aws-sig-v4-test-suite, 2015-08-30 vectors)
// and the S3 documentation's GET example.
#include <gtest/gtest.h>

#include "io/s3_sigv4.h"

namespace lancet::io::s3 {
namespace {

const char* kEmpty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
const Credentials kSuiteKey{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", ""};
const char* kSuiteDate = "20150830T123600Z";

SignInput Suite(std::string method, std::string path, HeaderList query = {}) {
  SignInput in;
  in.method = std::move(method);
  in.path = std::move(path);
  in.query = std::move(query);
  in.headers = {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", kSuiteDate}};
  in.payload_hash = kEmpty;
  return in;
}

TEST(SigV4, GetVanilla) {
  SignOutput out = SignV4(Suite("GET", "/"), kSuiteKey, "us-east-1", "service", kSuiteDate);
  EXPECT_EQ(out.canonical_request, std::string("GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\n"
                                               "host;x-amz-date\n") +
                                       kEmpty);
  EXPECT_EQ(out.string_to_sign,
            "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n"
            "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63");
  EXPECT_EQ(out.signature, "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
  EXPECT_EQ(
      out.authorization,
      "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
      "SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
}

TEST(SigV4, GetVanillaQueryOrderKeyCase) {
  SignOutput out = SignV4(Suite("GET", "/", {{"Param2", "value2"}, {"Param1", "value1"}}), kSuiteKey, "us-east-1",
                          "service", kSuiteDate);
  EXPECT_EQ(out.canonical_request, std::string("GET\n/\nParam1=value1&Param2=value2\nhost:example.amazonaws.com\n"
                                               "x-amz-date:20150830T123600Z\n\nhost;x-amz-date\n") +
                                       kEmpty);
  EXPECT_EQ(out.signature, "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");
}

TEST(SigV4, PostVanilla) {
  SignOutput out = SignV4(Suite("POST", "/"), kSuiteKey, "us-east-1", "service", kSuiteDate);
  EXPECT_EQ(out.signature, "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b");
}

TEST(SigV4, GetUtf8PathIsPercentEncoded) {
  SignOutput out = SignV4(Suite("GET", "/\xE1\x88\xB4"), kSuiteKey, "us-east-1", "service", kSuiteDate);
  EXPECT_EQ(out.canonical_request.substr(0, 15), "GET\n/%E1%88%B4\n");
  EXPECT_EQ(out.signature, "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85");
}

TEST(SigV4, PostXWwwFormUrlencoded) {
  SignInput in = Suite("POST", "/");
  in.headers.emplace_back("Content-Type", "application/x-www-form-urlencoded");
  in.payload_hash = Sha256Hex(std::string_view("Param1=value1"));
  EXPECT_EQ(in.payload_hash, "9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e");
  SignOutput out = SignV4(in, kSuiteKey, "us-east-1", "service", kSuiteDate);
  EXPECT_EQ(out.canonical_request,
            "POST\n/\n\ncontent-type:application/x-www-form-urlencoded\nhost:example.amazonaws.com\n"
            "x-amz-date:20150830T123600Z\n\ncontent-type;host;x-amz-date\n"
            "9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e");
  EXPECT_EQ(out.string_to_sign.substr(out.string_to_sign.rfind('\n') + 1),
            "42a5e5bb34198acb3e84da4f085bb7927f2bc277ca766e6d19c73c2154021281");
  EXPECT_EQ(out.signature, "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a");
}

// The S3 API reference's "GET Object" example (examplebucket, Range bytes=0-9).
TEST(SigV4, S3GetObjectExample) {
  SignInput in;
  in.method = "GET";
  in.path = "/test.txt";
  in.headers = {{"Host", "examplebucket.s3.amazonaws.com"},
                {"Range", "bytes=0-9"},
                {"x-amz-content-sha256", kEmpty},
                {"x-amz-date", "20130524T000000Z"}};
  in.payload_hash = kEmpty;
  Credentials key{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""};
  SignOutput out = SignV4(in, key, "us-east-1", "s3", "20130524T000000Z");
  EXPECT_EQ(out.signed_headers, "host;range;x-amz-content-sha256;x-amz-date");
  EXPECT_EQ(out.string_to_sign,
            "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
            "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  EXPECT_EQ(out.signature, "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(SigV4, CanonicalQuerySortsEncodesAndKeepsValuelessKeys) {
  EXPECT_EQ(CanonicalQuery({{"uploads", ""}}), "uploads=");
  EXPECT_EQ(CanonicalQuery({{"prefix", "a/b c"}, {"list-type", "2"}, {"delimiter", "/"}}),
            "delimiter=%2F&list-type=2&prefix=a%2Fb%20c");
  EXPECT_EQ(UriEncode("a b/c~d", true), "a%20b/c~d");
  EXPECT_EQ(UriEncode("a+b=c", false), "a%2Bb%3Dc");
}

TEST(SigV4, HeaderValuesAreTrimmedAndRepeatsJoined) {
  SignInput in = Suite("GET", "/");
  in.headers.emplace_back("My-Header1", "  a   b  ");
  in.headers.emplace_back("my-header1", "c");
  SignOutput out = SignV4(in, kSuiteKey, "us-east-1", "service", kSuiteDate);
  EXPECT_NE(out.canonical_request.find("\nmy-header1:a b,c\n"), std::string::npos) << out.canonical_request;
  EXPECT_EQ(out.signed_headers, "host;my-header1;x-amz-date");
}

TEST(SigV4, AmzDate) { EXPECT_EQ(AmzDate(1440938160), "20150830T123600Z"); }

}  // namespace
}  // namespace lancet::io::s3
