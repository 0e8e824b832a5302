// split_shell_words: POSIX-shell word splitting without expansion.
#include <catch2/catch.hpp>

#include "slipway/core/topology.hpp"

using slipway::core::split_shell_words;
using Words = std::vector<std::string>;

static Words split_ok(std::string_view line) {
  std::string error;
  auto words = split_shell_words(line, &error);
  INFO(error);
  REQUIRE(words.has_value());
  return *words;
}

static std::string split_error(std::string_view line) {
  std::string error;
  REQUIRE_FALSE(split_shell_words(line, &error).has_value());
  return error;
}

TEST_CASE("blanks separate words, runs of blanks count once", "[core][shell]") {
  CHECK(split_ok("python3  learner.py\t--lr 0.1\n") == Words{"python3", "learner.py", "--lr", "0.1"});
  CHECK(split_ok("   ").empty());
  CHECK(split_ok("").empty());
}

TEST_CASE("single quotes keep everything literally", "[core][shell]") {
  CHECK(split_ok(R"(echo 'a  b' 'c\d' '$HOME' '"q"')") == Words{"echo", "a  b", R"(c\d)", "$HOME", R"("q")"});
}

TEST_CASE("double quotes group words and unescape only \\ \" $ `", "[core][shell]") {
  CHECK(split_ok(R"(echo "a b" "say \"hi\"" "back\\slash" "keep\n" "\$x")") ==
        Words{"echo", "a b", R"(say "hi")", R"(back\slash)", R"(keep\n)", "$x"});
}

TEST_CASE("a backslash outside quotes takes the next character literally", "[core][shell]") {
  CHECK(split_ok(R"(a\ b c\'d \\ \>)") == Words{"a b", "c'd", R"(\)", ">"});
}

TEST_CASE("a backslash-newline continues the line", "[core][shell]") {
  CHECK(split_ok("prog \\\n  --flag") == Words{"prog", "--flag"});
  CHECK(split_ok("\"a\\\nb\"") == Words{"ab"});
}

TEST_CASE("quoted pieces join into one word; empty quotes are an empty word", "[core][shell]") {
  CHECK(split_ok(R"(a'b'"c"d)") == Words{"abcd"});
  CHECK(split_ok(R"(prog '' "")") == Words{"prog", "", ""});
}

TEST_CASE("malformed command lines say what is wrong", "[core][shell]") {
  CHECK_THAT(split_error("prog 'open"), Catch::Contains("unterminated single quote"));
  CHECK_THAT(split_error(R"(prog "open)"), Catch::Contains("unterminated double quote"));
  CHECK_THAT(split_error("prog \\"), Catch::Contains("lone backslash"));
}

TEST_CASE("shell operators and expansions are refused: no shell runs the command", "[core][shell]") {
  for (const char* line : {"a | b", "a && b", "a; b", "a > out", "a < in", "(a)", "echo $HOME", "echo `date`"}) {
    INFO(line);
    CHECK_THAT(split_error(line), Catch::Contains("/bin/sh"));
  }
  CHECK_THAT(split_error(R"(echo "$HOME")"), Catch::Contains("inside double quotes"));
  CHECK(split_ok(R"(echo '$HOME' \$HOME "a|b")") == Words{"echo", "$HOME", "$HOME", "a|b"});
}

TEST_CASE("the error pointer is optional", "[core][shell]") {
  CHECK_FALSE(split_shell_words("'x").has_value());
  CHECK(split_shell_words("x y").value() == Words{"x", "y"});
}
