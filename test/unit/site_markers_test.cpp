// Site markers (lib/site_markers.h): put in and taken out word for word,
// only into modules without lines, and read back as the input's ids.
#include "lib/site_markers.h"
#include "gtest/gtest.h"
#include "waveopt/waveopt.h"

namespace waveopt {
namespace {

const char* kLoop = R"(
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %1 "main"
               OpExecutionMode %1 LocalSize 1 1 1
          %2 = OpTypeVoid
          %3 = OpTypeFunction %2
          %4 = OpTypeInt 32 0
          %5 = OpTypePointer Function %4
          %6 = OpConstant %4 0
          %1 = OpFunction %2 None %3
          %7 = OpLabel
          %8 = OpVariable %5 Function
               OpStore %8 %6
               OpStore %8 %6
          %9 = OpLoad %4 %8
               OpReturn
               OpFunctionEnd
)";

std::vector<uint32_t> Assemble(const std::string& text) {
  std::vector<uint32_t> words;
  std::string error;
  EXPECT_TRUE(AssembleText(text, SPV_ENV_UNIVERSAL_1_3, &words, &error)) << error;
  return words;
}

// |text| without the disassembler's indentation.
std::string Unindented(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && c == ' ') continue;
    line_start = c == '\n';
    out += c;
  }
  return out;
}

TEST(SiteMarkers, AddedBeforeEachBodyInstructionAndStrippedExactly) {
  const std::vector<uint32_t> input = Assemble(kLoop);
  ASSERT_EQ(SiteMarkingFor(input), SiteMarking::kInRun);
  std::vector<uint32_t> marked = AddSiteMarkers(input);
  std::string text, error;
  ASSERT_TRUE(DisassembleWords(marked, SPV_ENV_UNIVERSAL_1_3, &text, &error)) << error;
  text = Unindented(text);
  // Label, variable, two stores (1 and 2 after %8), load, return (1 after %9).
  EXPECT_NE(text.find("OpLine %1 7 0\n%7 = OpLabel"), std::string::npos) << text;
  EXPECT_NE(text.find("OpLine %1 8 2\nOpStore"), std::string::npos) << text;
  EXPECT_NE(text.find("OpLine %1 9 1\nOpReturn"), std::string::npos) << text;
  EXPECT_EQ(marked.size(), input.size() + 6 * 4);
  StripSiteMarkers(&marked);
  EXPECT_EQ(marked, input);
}

TEST(SiteMarkers, NotForModulesWithLines) {
  std::string text = kLoop;
  const std::string label = "          %7 = OpLabel\n";
  text.replace(text.find(label), label.size(), label + "               OpLine %10 3 1\n");
  text.insert(text.find("          %2 = OpTypeVoid"), "         %10 = OpString \"a.comp\"\n");
  EXPECT_EQ(SiteMarkingFor(Assemble(text)), SiteMarking::kNone);
  EXPECT_EQ(SiteMarkingFor({}), SiteMarking::kNone);
}

// A DebugInfo import: markers in a separate run (SPIRV-Tools would write
// DebugNoLine with new ids into the output); a DebugLine: none.
TEST(SiteMarkers, SeparateRunForDebugInfoWithoutLines) {
  std::string text = kLoop;
  const std::string header = "               OpMemoryModel";
  text.insert(text.find(header),
              "               OpExtension \"SPV_KHR_non_semantic_info\"\n"
              "         %10 = OpExtInstImport \"NonSemantic.Shader.DebugInfo.100\"\n");
  text.insert(text.find("          %1 = OpFunction"),
              "         %11 = OpString \"a.comp\"\n"
              "         %12 = OpExtInst %2 %10 DebugSource %11\n");
  EXPECT_EQ(SiteMarkingFor(Assemble(text)), SiteMarking::kSeparateRun);
  const std::string store = "               OpStore %8 %6\n";
  text.insert(text.find(store), "         %13 = OpExtInst %2 %10 DebugLine %12 %6 %6 %6 %6\n");
  EXPECT_EQ(SiteMarkingFor(Assemble(text)), SiteMarking::kNone);
}

// Optimize() names the input's ids; a remark's site is described from them.
TEST(SiteMarkers, DescribeSitesNamesTheInputsInstruction) {
  const std::vector<uint32_t> input = Assemble(kLoop);
  Remark exact;
  exact.function = "%1";
  exact.site_id = 8;
  exact.site_offset = 2;
  exact.site_opcode = "OpStore";
  exact.site_own = true;
  Remark made = exact;  // a phi the SSA rewrite made, marked by its neighbour
  made.site_id = 9;
  made.site_offset = 0;
  made.site_opcode = "OpPhi";
  made.site_renamed = true;
  std::vector<Remark> remarks = {exact, made};
  DescribeSites(input, &remarks);
  EXPECT_EQ(remarks[0].site, "OpStore 2 after %8");
  EXPECT_EQ(remarks[1].site, "near %9 (OpLoad)");
  EXPECT_EQ(FormatRemark(remarks[1]).find("remark: : analysis  in %1 near %9 (OpLoad): "), 0u);
}

}  // namespace
}  // namespace waveopt
