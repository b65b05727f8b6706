#include "tools/waverun/spec.h"

#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace waverun {
namespace {

bool ParseU64(const std::string& text, uint64_t* value) {
  if (text.empty() || text[0] == '-') return false;
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text.c_str(), &end, 0);
  if (errno != 0 || *end != '\0') return false;
  *value = v;
  return true;
}

bool ParseU32(const std::string& text, uint32_t* value) {
  uint64_t v;
  if (!ParseU64(text, &v) || v > UINT32_MAX) return false;
  *value = static_cast<uint32_t>(v);
  return true;
}

bool ParseWordList(const std::string& text, std::vector<uint32_t>* words) {
  words->clear();
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    uint32_t bits;
    bool is_float;
    if (!ParseValue(item, &bits, &is_float)) return false;
    words->push_back(bits);
  }
  return !words->empty();
}

std::vector<std::string> Tokens(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string t;
  while (ss >> t) out.push_back(t);
  return out;
}

}  // namespace

bool ParseCompare(const std::string& text, Compare* compare, std::string* error) {
  Compare c;
  bool ok = true;
  if (text == "exact") {
    c.kind = Compare::Kind::kExact;
  } else if (text == "multiset") {
    c.kind = Compare::Kind::kMultiset;
  } else if (text == "ignore") {
    c.kind = Compare::Kind::kIgnore;
  } else if (text.rfind("ulp:", 0) == 0) {
    c.kind = Compare::Kind::kUlp;
    ok = ParseU32(text.substr(4), &c.ulps);
  } else if (text.rfind("multiset-count:", 0) == 0) {
    c.kind = Compare::Kind::kMultisetCount;
    std::string rest = text.substr(15);
    size_t at = rest.find('@');
    BindingKey key;
    ok = ParseBindingKey(rest.substr(0, at), &key);
    c.counter_set = key.first;
    c.counter_binding = key.second;
    if (ok && at != std::string::npos) ok = ParseU32(rest.substr(at + 1), &c.counter_word);
  } else {
    ok = false;
  }
  if (!ok) {
    *error = "bad compare mode '" + text +
             "' (expected exact, multiset, multiset-count:SET.BINDING[@WORD], ulp:N or ignore)";
    return false;
  }
  *compare = c;
  return true;
}

std::string CompareName(const Compare& c) {
  switch (c.kind) {
    case Compare::Kind::kExact:
      return "exact";
    case Compare::Kind::kMultiset:
      return "multiset";
    case Compare::Kind::kMultisetCount:
      return "multiset-count:" + BindingKeyName({c.counter_set, c.counter_binding}) + "@" +
             std::to_string(c.counter_word);
    case Compare::Kind::kUlp:
      return "ulp:" + std::to_string(c.ulps);
    case Compare::Kind::kIgnore:
      return "ignore";
  }
  return "?";
}

bool ParseBindingKey(const std::string& text, BindingKey* key) {
  size_t dot = text.find('.');
  uint32_t set = 0, binding = 0;
  if (dot == std::string::npos) {
    if (!ParseU32(text, &binding)) return false;
  } else if (!ParseU32(text.substr(0, dot), &set) || !ParseU32(text.substr(dot + 1), &binding)) {
    return false;
  }
  *key = {set, binding};
  return true;
}

std::string BindingKeyName(const BindingKey& key) {
  return std::to_string(key.first) + "." + std::to_string(key.second);
}

namespace {

// One tokenized spec line being applied: its tokens, where it came from and
// what it changes. Fail() sets the one-line error and returns false.
struct SpecLine {
  const std::vector<std::string>& t;
  const std::string& origin;
  RunSpec* spec;
  std::string* error;

  bool Fail(const std::string& msg) const {
    *error = origin + ": " + msg;
    return false;
  }
};

// Splits t[i] at its '='; false (and the error) when it has none.
bool KeyValue(const SpecLine& l, size_t i, std::string* key, std::string* value) {
  size_t eq = l.t[i].find('=');
  if (eq == std::string::npos) return l.Fail("expected key=value, got '" + l.t[i] + "'");
  *key = l.t[i].substr(0, eq);
  *value = l.t[i].substr(eq + 1);
  return true;
}

// "dispatch X [Y [Z]]".
bool ApplyDispatch(const SpecLine& l) {
  const std::vector<std::string>& t = l.t;
  if (t.size() < 2 || t.size() > 4) return l.Fail("expected 'dispatch X [Y [Z]]'");
  uint32_t d[3] = {1, 1, 1};
  for (size_t i = 1; i < t.size(); ++i) {
    if (!ParseU32(t[i], &d[i - 1]) || d[i - 1] == 0) {
      return l.Fail("bad dispatch size '" + t[i] + "'");
    }
  }
  for (int i = 0; i < 3; ++i) l.spec->dispatch[i] = d[i];
  l.spec->dispatch_given = true;
  l.spec->dispatch_origin = l.origin;
  return true;
}

// "draw fullscreen WxH".
bool ApplyDraw(const SpecLine& l) {
  const std::vector<std::string>& t = l.t;
  const char* usage = "expected 'draw fullscreen WxH' (W and H from 1 to 4096)";
  if (t.size() != 3 || t[1] != "fullscreen") return l.Fail(usage);
  size_t x = t[2].find('x');
  uint32_t w = 0, h = 0;
  if (x == std::string::npos || !ParseU32(t[2].substr(0, x), &w) ||
      !ParseU32(t[2].substr(x + 1), &h) || w == 0 || h == 0 || w > kMaxDrawSize ||
      h > kMaxDrawSize) {
    return l.Fail("bad draw size '" + t[2] + "': " + usage);
  }
  l.spec->draw_width = w;
  l.spec->draw_height = h;
  l.spec->draw_given = true;
  l.spec->draw_origin = l.origin;
  return true;
}

bool ApplySeed(const SpecLine& l) {
  if (l.t.size() != 2 || !ParseU64(l.t[1], &l.spec->seed)) return l.Fail("expected 'seed N'");
  l.spec->seed_given = true;
  return true;
}

bool ApplyUlp(const SpecLine& l) {
  uint32_t n = 0;
  if (l.t.size() != 2 || !ParseU32(l.t[1], &n)) return l.Fail("expected 'ulp N'");
  l.spec->float_ulps = n;
  return true;
}

bool ApplySeparateKinds(const SpecLine& l) {
  if (l.t.size() != 1) return l.Fail("'separate-kinds' takes no value");
  l.spec->separate_kinds = true;
  return true;
}

bool ApplyReps(const SpecLine& l) {
  if (l.t.size() != 2 || !ParseU32(l.t[1], &l.spec->reps) || l.spec->reps == 0) {
    return l.Fail("expected 'reps N' with N >= 1");
  }
  return true;
}

// "const ID = VALUE" or "const ID=VALUE" or "const ID VALUE".
bool ApplyConst(const SpecLine& l) {
  const std::vector<std::string>& t = l.t;
  std::string rest;
  for (size_t i = 1; i < t.size(); ++i) rest += (i > 1 ? " " : "") + t[i];
  for (char& ch : rest) {
    if (ch == '=') ch = ' ';
  }
  std::vector<std::string> kv = Tokens(rest);
  uint32_t id, bits;
  bool is_float;
  if (kv.size() != 2 || !ParseU32(kv[0], &id)) return l.Fail("expected 'const ID = VALUE'");
  if (kv[1] == "true" || kv[1] == "false") {
    bits = kv[1] == "true" ? 1 : 0;
  } else if (!ParseValue(kv[1], &bits, &is_float)) {
    return l.Fail("bad constant value '" + kv[1] + "'");
  }
  l.spec->constants[id] = bits;
  return true;
}

// "pointer LABEL key=value...".
bool ApplyPointer(const SpecLine& l) {
  const std::vector<std::string>& t = l.t;
  if (t.size() < 2 || t[1].find('+') == std::string::npos || t[1].find('=') != std::string::npos) {
    return l.Fail(
        "expected 'pointer LABEL key=value...' (LABEL: SET.BINDING+OFFSET or push+OFFSET)");
  }
  PointerSpec& p = l.spec->pointers[t[1]];
  p.origin = l.origin;
  for (size_t i = 2; i < t.size(); ++i) {
    std::string key, value, err;
    if (!KeyValue(l, i, &key, &value)) return false;
    if (key == "size") {
      uint64_t n;
      if (!ParseU64(value, &n) || n == 0) return l.Fail("bad size '" + value + "'");
      p.elements = n;
    } else if (key == "fill") {
      Fill f;
      if (!ParseFill(value, &f, &err)) return l.Fail(err);
      p.fill = f;
    } else if (key == "compare") {
      Compare c;
      if (!ParseCompare(value, &c, &err)) return l.Fail(err);
      p.compare = c;
    } else if (key == "words") {
      if (!ParseWordList(value, &p.words)) return l.Fail("bad word list '" + value + "'");
    } else {
      return l.Fail("unknown key '" + key + "' for a pointer (size, fill, compare, words)");
    }
  }
  return true;
}

// A binding's size=N (elements) or size=WxH[xD] (an image) into |b|.
bool ApplyBindingSize(const SpecLine& l, const std::string& value, BindingSpec* b) {
  size_t x = value.find('x');
  if (x == std::string::npos) {
    uint64_t n;
    if (!ParseU64(value, &n)) return l.Fail("bad size '" + value + "'");
    b->elements = n;
    b->width = b->height = b->depth = 0;
    return true;
  }
  size_t x2 = value.find('x', x + 1);
  uint32_t d = 0;
  bool ok = ParseU32(value.substr(0, x), &b->width) &&
            ParseU32(value.substr(x + 1, x2 == std::string::npos ? std::string::npos : x2 - x - 1),
                     &b->height) &&
            (x2 == std::string::npos || (ParseU32(value.substr(x2 + 1), &d) && d > 0));
  if (!ok || b->width == 0 || b->height == 0 || b->width > 16384 || b->height > 16384 ||
      d > 16384) {
    return l.Fail("bad image size '" + value + "' (expected WxH or WxHxD, at most 16384)");
  }
  b->depth = d;
  b->elements.reset();
  return true;
}

// One key=value of a binding line (|push|: of a push line, which takes
// fill= and words= only) into |b|.
bool ApplyBindingKey(const SpecLine& l, bool push, const std::string& key, const std::string& value,
                     BindingSpec* b) {
  std::string err;
  if (key == "fill") {
    Fill f;
    if (!ParseFill(value, &f, &err)) return l.Fail(err);
    b->fill = f;
  } else if (key == "words") {
    if (!ParseWordList(value, &b->words)) return l.Fail("bad word list '" + value + "'");
  } else if (push) {
    return l.Fail("push takes fill= and words= only, not '" + key + "'");
  } else if (key == "size") {
    return ApplyBindingSize(l, value, b);
  } else if (key == "count") {
    uint32_t n;
    if (!ParseU32(value, &n) || n == 0 || n > 4096) {
      return l.Fail("bad descriptor count '" + value + "' (1 to 4096)");
    }
    b->count = n;
  } else if (key == "compare") {
    Compare c;
    if (!ParseCompare(value, &c, &err)) return l.Fail(err);
    b->compare = c;
  } else if (key == "format") {
    ImageFormat f;
    if (!ParseImageFormat(value, &f)) return l.Fail("unknown image format '" + value + "'");
    b->format = f;
  } else {
    return l.Fail("unknown key '" + key + "' (size, count, fill, compare, format, words)");
  }
  return true;
}

// The key=value tokens from t[|first|] on into |b|.
bool ApplyBindingKeys(const SpecLine& l, bool push, size_t first, BindingSpec* b) {
  for (size_t i = first; i < l.t.size(); ++i) {
    std::string key, value;
    if (!KeyValue(l, i, &key, &value)) return false;
    if (!ApplyBindingKey(l, push, key, value, b)) return false;
  }
  return true;
}

// "binding SET.BINDING key=value...".
bool ApplyBinding(const SpecLine& l) {
  BindingKey key;
  if (l.t.size() < 2 || !ParseBindingKey(l.t[1], &key)) {
    return l.Fail("expected 'binding SET.BINDING key=value...'");
  }
  BindingSpec* b = &l.spec->bindings[key];
  b->origin = l.origin;
  return ApplyBindingKeys(l, /*push=*/false, 2, b);
}

// "push key=value...": the push constants' fill= and words=.
bool ApplyPush(const SpecLine& l) {
  BindingSpec scratch;
  if (!ApplyBindingKeys(l, /*push=*/true, 1, &scratch)) return false;
  if (scratch.fill) l.spec->push_fill = scratch.fill;
  if (!scratch.words.empty()) l.spec->push_words = scratch.words;
  return true;
}

// The spec file's keywords and what applies them.
const struct {
  const char* keyword;
  bool (*apply)(const SpecLine&);
} kKeywords[] = {
    {"dispatch", ApplyDispatch},
    {"draw", ApplyDraw},
    {"seed", ApplySeed},
    {"ulp", ApplyUlp},
    {"separate-kinds", ApplySeparateKinds},
    {"reps", ApplyReps},
    {"const", ApplyConst},
    {"pointer", ApplyPointer},
    {"push", ApplyPush},
    {"binding", ApplyBinding},
};

}  // namespace

bool ApplySpecLine(const std::string& raw_line, const std::string& origin, RunSpec* spec,
                   std::string* error) {
  std::string line = raw_line.substr(0, raw_line.find('#'));
  std::vector<std::string> t = Tokens(line);
  if (t.empty()) return true;
  const SpecLine l{t, origin, spec, error};
  for (const auto& k : kKeywords) {
    if (t[0] == k.keyword) return k.apply(l);
  }
  return l.Fail(
      "unknown keyword '" + t[0] +
      "' (dispatch, draw, seed, reps, const, binding, push, pointer, separate-kinds, ulp)");
}

bool ApplySpecText(const std::string& text, const std::string& path, RunSpec* spec,
                   std::string* error) {
  std::stringstream ss(text);
  std::string line;
  int n = 0;
  while (std::getline(ss, line)) {
    ++n;
    if (!ApplySpecLine(line, path + ":" + std::to_string(n), spec, error)) return false;
  }
  return true;
}

std::string SpecPathFor(const std::string& shader_path) {
  size_t slash = shader_path.find_last_of('/');
  size_t dot = shader_path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) {
    return shader_path + ".waverun";
  }
  return shader_path.substr(0, dot) + ".waverun";
}

namespace {

std::string WordList(const std::vector<uint32_t>& words) {
  std::string s;
  for (size_t i = 0; i < words.size(); ++i) s += (i ? "," : "") + std::to_string(words[i]);
  return s;
}

}  // namespace

std::string FormatSpec(const RunSpec& spec) {
  std::string s;
  if (spec.draw_given) {
    s += "draw fullscreen " + std::to_string(spec.draw_width) + "x" +
         std::to_string(spec.draw_height) + "\n";
  } else {
    s += "dispatch " + std::to_string(spec.dispatch[0]) + " " + std::to_string(spec.dispatch[1]) +
         " " + std::to_string(spec.dispatch[2]) + "\n";
  }
  s += "seed " + std::to_string(spec.seed) + "\n";
  if (spec.reps != RunSpec().reps) s += "reps " + std::to_string(spec.reps) + "\n";
  if (spec.separate_kinds) s += "separate-kinds\n";
  if (spec.float_ulps) s += "ulp " + std::to_string(*spec.float_ulps) + "\n";
  for (const auto& c : spec.constants) {
    s += "const " + std::to_string(c.first) + " = " + std::to_string(c.second) + "\n";
  }
  for (const auto& kv : spec.bindings) {
    const BindingSpec& b = kv.second;
    std::string line = "binding " + BindingKeyName(kv.first);
    if (b.elements) line += " size=" + std::to_string(*b.elements);
    if (b.width != 0) {
      line += " size=" + std::to_string(b.width) + "x" + std::to_string(b.height);
      if (b.depth != 0) line += "x" + std::to_string(b.depth);
    }
    if (b.count) line += " count=" + std::to_string(*b.count);
    if (b.format) line += std::string(" format=") + GetFormatInfo(*b.format).name;
    if (b.fill) line += " fill=" + FillName(*b.fill);
    if (b.compare) line += " compare=" + CompareName(*b.compare);
    if (!b.words.empty()) line += " words=" + WordList(b.words);
    s += line + "\n";
  }
  for (const auto& kv : spec.pointers) {
    const PointerSpec& p = kv.second;
    std::string line = "pointer " + kv.first;
    if (p.elements) line += " size=" + std::to_string(*p.elements);
    if (p.fill) line += " fill=" + FillName(*p.fill);
    if (p.compare) line += " compare=" + CompareName(*p.compare);
    if (!p.words.empty()) line += " words=" + WordList(p.words);
    s += line + "\n";
  }
  if (spec.push_fill || !spec.push_words.empty()) {
    std::string line = "push";
    if (spec.push_fill) line += " fill=" + FillName(*spec.push_fill);
    if (!spec.push_words.empty()) line += " words=" + WordList(spec.push_words);
    s += line + "\n";
  }
  return s;
}

}  // namespace waverun
