// Megatron-Core's pipeline layout grammar (plan/pp_layout.h).
#include "plan/pp_layout.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/field_error.h"

namespace gpuplan {
namespace {

// The digits of a repeat count at `at` (after a `*`); false when there are none.
bool layout_repeat_count(std::string_view s, std::size_t& at, long& n) {
  const std::size_t begin = at;
  n = 0;
  while (at < s.size() && std::isdigit(static_cast<unsigned char>(s[at])) != 0) {
    n = n * 10 + (s[at] - '0');
    if (n > 100000) return false;
    ++at;
  }
  return at > begin;
}

// parse_str_to_list's unrolling: first every `(group)*n`, then every `x*n`, commas dropped.
bool unroll_layout(std::string_view text, std::string& out, std::string& error) {
  std::string groups;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == ',') {
      ++i;
      continue;
    }
    if (c != '(') {
      groups += c;
      ++i;
      continue;
    }
    const std::size_t close = text.find(')', i + 1);
    std::size_t at = close + 2;
    long n = 0;
    if (close == std::string_view::npos || close == i + 1 || at > text.size() || text[close + 1] != '*' ||
        !layout_repeat_count(text, at, n)) {
      error = "a '(' opens a group that is not closed and repeated: write (CHUNKS)*N, e.g. (t*4|)*14";
      return false;
    }
    const std::string_view group = text.substr(i + 1, close - i - 1);
    if (group.find('(') != std::string_view::npos) {
      error = "nested parentheses: Megatron-Core's parser does not nest groups; write the inner repeat out";
      return false;
    }
    for (long k = 0; k < n; ++k) {
      for (char g : group) {
        if (g != ',') groups += g;
      }
    }
    i = at;
  }
  out.clear();
  for (std::size_t i = 0; i < groups.size();) {
    std::size_t at = i + 2;
    long n = 0;
    if (i + 1 < groups.size() && groups[i + 1] == '*' && layout_repeat_count(groups, at, n)) {
      out.append(static_cast<std::size_t>(n), groups[i]);
      i = at;
    } else {
      out += groups[i];
      ++i;
    }
  }
  return true;
}

}  // namespace

bool parse_pp_layout(std::string_view text, PpLayout& out, std::string& error) {
  out = PpLayout{};
  std::string flat;
  if (!unroll_layout(text, flat, error)) return false;
  int chunk = 0;
  int embeddings = 0;
  int losses = 0;
  bool decoder_after_mtp = false;
  out.layers.push_back(0);
  for (std::size_t i = 0; i < flat.size(); ++i) {
    const char c = flat[i];
    switch (c) {
      case '|':
        out.layers.push_back(0);
        ++chunk;
        break;
      case 't':
        ++out.layers.back();
        if (out.mtp_layers > 0) decoder_after_mtp = true;
        break;
      case 'm':
        if (out.mtp_layers > 0 && out.mtp_chunk != chunk) {
          error = "its MTP layers ('m') sit in two chunks: Megatron-Core puts them all in one";
          return false;
        }
        out.mtp_chunk = chunk;
        ++out.mtp_layers;
        break;
      case 'E':
        if (i != 0) {
          error = "the embedding ('E') must come first, once";
          return false;
        }
        ++embeddings;
        break;
      case 'L':
        if (i + 1 != flat.size()) {
          error = "the loss ('L') must come last, once";
          return false;
        }
        ++losses;
        break;
      default:
        error = fmt::format(
            "'{}' is not a layout character: use E (embedding), t (decoder layer), m (MTP layer), "
            "L (loss), | between chunks, x*N and (…)*N repeats",
            c);
        return false;
    }
  }
  if (embeddings != 1 || losses != 1) {
    error = "it must start with the embedding 'E' and end with the loss 'L' (\"Et*4|(t*4|)*14tmL\")";
    return false;
  }
  if (decoder_after_mtp) {
    error = "a decoder layer ('t') follows an MTP layer ('m'): the MTP layers come after every decoder layer";
    return false;
  }
  return true;
}

std::string check_pp_layout(const PpLayout& layout, int pp, int vp, std::int64_t model_layers, int mtp_layers) {
  const auto chunks = static_cast<std::int64_t>(layout.layers.size());
  if (chunks != static_cast<std::int64_t>(pp) * vp) {
    return fmt::format(
        "it has {} chunks and the plan pp {} × vp {} = {}: give one '|'-separated chunk per pipeline "
        "stage and virtual stage",
        chunks, pp, vp, static_cast<std::int64_t>(pp) * vp);
  }
  std::int64_t decoders = 0;
  for (int n : layout.layers) decoders += n;
  if (decoders != model_layers) {
    return fmt::format("it places {} decoder layers ('t') and the model has {}: place every layer once", decoders,
                       model_layers);
  }
  if (layout.mtp_layers != mtp_layers) {
    return fmt::format("it holds {} MTP layers ('m') and the plan trains {} (mtp_layers): make them agree",
                       layout.mtp_layers, mtp_layers);
  }
  if (layout.mtp_layers > 0 && layout.mtp_chunk < static_cast<std::int64_t>(vp - 1) * pp) {
    return fmt::format(
        "its MTP layers sit in chunk {}, not in a rank's last virtual stage (chunks {} to {}): "
        "Megatron-Core requires that",
        layout.mtp_chunk, static_cast<std::int64_t>(vp - 1) * pp, chunks - 1);
  }
  return "";
}

void apply_mtp_and_layout(const ModelSpec& model, int mtp_layers, std::string_view layout_text, Plan& p) {
  if (mtp_layers < 0 || mtp_layers > model.mtp_layers) {
    throw FieldError("mtp_layers",
                     fmt::format("--mtp-layers {}: {} has {} multi-token-prediction module(s) "
                                 "(num_nextn_predict_layers); use 0{}",
                                 mtp_layers, model.id, model.mtp_layers,
                                 model.mtp_layers > 0 ? fmt::format(" to {}", model.mtp_layers) : std::string()));
  }
  p.mtp_layers = mtp_layers;
  p.mtp_chunk = -1;
  p.pp_layout_layers.clear();
  if (layout_text.empty()) return;
  PpLayout layout;
  std::string error;
  if (!parse_pp_layout(layout_text, layout, error) ||
      !(error = check_pp_layout(layout, p.pp, p.vp, model.layers, p.mtp_layers)).empty()) {
    throw FieldError("pp_layout", fmt::format("--pp-layout '{}': {}", layout_text, error));
  }
  if (p.pp_embedding_head_slots) {
    throw FieldError("pp_layout", fmt::format("--pp-layout '{}' with --pp-embedding-head-slots: the layout places "
                                              "the embedding and the head itself; drop one of the two",
                                              layout_text));
  }
  apply_pp_layout(layout, p);
}

void apply_pp_layout(const PpLayout& layout, Plan& p) {
  p.pp_layout_layers = layout.layers;
  p.mtp_chunk = layout.mtp_layers > 0 ? layout.mtp_chunk : -1;
}

std::string pp_layout_text(const Plan& p) {
  const auto& layers = p.pp_layout_layers;
  if (layers.empty()) return "";
  const auto chunks = static_cast<int>(layers.size());
  const int mtp_chunk = p.mtp_layers > 0 ? (p.mtp_chunk >= 0 ? p.mtp_chunk : chunks - 1) : -1;
  const auto chunk_text = [&](int c) {
    std::string s = c == 0 ? "E" : "";
    const int n = layers[static_cast<std::size_t>(c)];
    if (n == 1) s += "t";
    if (n > 1) s += fmt::format("t*{}", n);
    if (c == mtp_chunk) s += p.mtp_layers == 1 ? std::string("m") : fmt::format("m*{}", p.mtp_layers);
    if (c == chunks - 1) s += "L";
    return s;
  };
  std::string out;
  for (int c = 0; c < chunks;) {
    const std::string s = chunk_text(c);
    int run = 1;
    while (c + run < chunks && chunk_text(c + run) == s) ++run;
    const bool to_end = c + run == chunks;
    const int folded = to_end ? run - 1 : run;  // the last chunk has no '|' after it
    if (folded > 1) {
      out += fmt::format("({}|)*{}", s, folded);
    } else if (folded == 1) {
      out += s + "|";
    }
    if (to_end) out += s;
    c += run;
  }
  return out;
}

}  // namespace gpuplan
