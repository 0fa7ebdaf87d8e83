// The one spec syntax and the parameter tables: parsing, validation, the
// canonical spelling of every policy, and the docs' parameter reference.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "policy/registry.hpp"
#include "util/spec.hpp"
#include "workload/models.hpp"

namespace los {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(Spec, ParsesNameKeysAndBareFlags) {
  const Spec s = Spec::parse("tabu:safe:period=60");
  EXPECT_EQ(s.name, "tabu");
  EXPECT_EQ(s.params.at("safe"), "true");
  EXPECT_EQ(s.params.at("period"), "60");
  EXPECT_EQ(s.to_string(), "tabu:period=60:safe=true");
  EXPECT_NE(error_of([] { Spec::parse(":k=1"); }).find("malformed policy name"), std::string::npos);
  EXPECT_NE(error_of([] { Spec::parse("x:k=1:k=2"); }).find("parameter 'k' given twice"), std::string::npos);
  EXPECT_NE(error_of([] { Spec::parse("x:k="); }).find("parameter 'k' has an empty value"), std::string::npos);
  EXPECT_NE(error_of([] { Spec::parse("x:a b=1", kModelKind); }).find("model 'x:a b=1': malformed key"),
            std::string::npos);
  const std::vector<Spec> list = parse_spec_list("a,b:k=1");
  ASSERT_EQ(list.size(), 2U);
  EXPECT_EQ(list[1].params.at("k"), "1");
}

TEST(ParamTable, ChecksEveryTypeAndFillsDefaults) {
  const ParamTable t = {
      Param::integer("n", 5, 1, 10, "a count"),
      Param::number("x", 0.5, 0, 1, "a fraction"),
      Param::flag("on", false, "a switch"),
      Param::choice("mode", {"a", "b"}, "a choice"),
  };
  const ParamValues d = t.read(Spec::parse("p"));
  EXPECT_EQ(d.integer("n"), 5);
  EXPECT_EQ(d.number("x"), 0.5);
  EXPECT_FALSE(d.flag("on"));
  EXPECT_EQ(d.choice("mode"), "a");
  EXPECT_EQ(d.canonical(), "p");
  EXPECT_EQ(d.canonical(ParamValues::Spelling::EveryKey), "p:mode=a:n=5:on=false:x=0.5");

  const ParamValues v = t.read(Spec::parse("p:n=7:x=.25:on:mode=b"));
  EXPECT_EQ(v.canonical(), "p:mode=b:n=7:on:x=0.25");
  EXPECT_EQ(t.read(Spec::parse(v.canonical())).canonical(), v.canonical());
  // A default given explicitly is not written; "on=no" is false.
  EXPECT_EQ(t.read(Spec::parse("p:n=5:x=0.50:on=no:mode=a")).canonical(), "p");

  const auto bad = [&](const std::string& spec) { return error_of([&] { t.read(Spec::parse(spec)); }); };
  EXPECT_NE(bad("p:n=0").find("policy 'p': parameter 'n' must be in [1, 10], got 0"), std::string::npos);
  EXPECT_NE(bad("p:n=99999999999999999999").find("must be in [1, 10]"), std::string::npos);
  EXPECT_NE(bad("p:n=1.5").find("parameter 'n' must be a whole number, got '1.5'"), std::string::npos);
  EXPECT_NE(bad("p:x=nan").find("parameter 'x' must be a number"), std::string::npos);
  EXPECT_NE(bad("p:x=2").find("must be in [0, 1], got 2"), std::string::npos);
  EXPECT_NE(bad("p:on=maybe").find("'on' must be true or false"), std::string::npos);
  EXPECT_NE(bad("p:mode=c").find("'mode' must be one of a, b, got 'c'"), std::string::npos);
  EXPECT_NE(bad("p:zzz=1").find("unknown parameter 'zzz' (known: mode, n, on, x)"), std::string::npos);
  EXPECT_NE(error_of([] { ParamTable{}.read(Spec::parse("q:k=1")); }).find("(it takes none)"), std::string::npos);
}

// Every policy: the canonical name of its defaults is the bare name, and a
// spec that sets every parameter to a non-default value round-trips.
TEST(PolicyCatalog, EveryPolicysNameRoundTrips) {
  for (const PolicyInfo& info : policy_catalog()) {
    SCOPED_TRACE(info.name);
    EXPECT_EQ(make_policy(info.name)->name(), info.name);
    Spec all{info.name, {}};
    for (const Param& p : info.parameters().params()) {
      switch (p.type) {
        case Param::Type::Integer:
          all.params[p.key] = std::to_string(static_cast<long long>(p.max));
          break;
        case Param::Type::Number:
          all.params[p.key] = number_text(p.max);
          break;
        case Param::Type::Flag:
          all.params[p.key] = p.fallback == "true" ? "false" : "true";
          break;
        case Param::Type::Choice:
          all.params[p.key] = p.choices.back();
          break;
      }
    }
    const std::string name = make_policy(all)->name();
    EXPECT_EQ(name, canonical_policy(all.to_string()));
    EXPECT_EQ(make_policy(name)->name(), name);
    EXPECT_EQ(std::count(name.begin(), name.end(), ':'), static_cast<long>(info.parameters().params().size())) << name;
  }
}

// docs/policies.md carries the parameter reference the tables generate.
TEST(PolicyCatalog, DocsListEveryParameterWithItsDefault) {
  std::ifstream in(std::string(LOS_SOURCE_DIR) + "/docs/policies.md");
  ASSERT_TRUE(in) << "docs/policies.md not found";
  std::stringstream doc;
  doc << in.rdbuf();
  EXPECT_NE(doc.str().find(policy_catalog_markdown()), std::string::npos)
      << "docs/policies.md's parameter reference is not what the tables say; regenerate it with\n"
         "  build/bin/los-sim --list-policies --format markdown\n"
      << policy_catalog_markdown();
}

TEST(ModelSpec, UsesTheOneParserAndReportsModelErrors) {
  EXPECT_EQ(generate_model(parse_model_spec("lublin:jobs=5")).spec,
            "lublin:arrival-scale=1:estimates=exact:jobs=5:max-estimate=172800:nodes=128:parameters=typeless:phi=0.2:seed=1:start-hour=0");
  EXPECT_THROW(parse_model_spec("lublin:jobs=1:jobs=2"), ModelError);
  EXPECT_NE(error_of([] {
              generate_model(parse_model_spec("lublin:jobs"));
            }).find("model 'lublin': key 'jobs' must be a whole number, got 'true'"),
            std::string::npos);
}

}  // namespace
}  // namespace los
