// Numbers as people read them, for the sentences and tables of the HTML report and the web UI
// (report/answer_words.h, report/assumptions.h): three significant figures, digits grouped,
// never scientific notation ("72,500", "1.3 billion"), time in the unit that suits it ("46 ms",
// "2.1 h"), memory in GiB, FLOPs with SI prefixes, fractions as percentages.
#pragma once

#include <string>

namespace gpuplan {

// 3 significant figures, trailing zeros dropped, thousands grouped: 0.0123, 4.5, 463, 72,500;
// from a billion on in words: "1.3 billion", "15 trillion"; past 1e15 "× 10^N" in words too.
std::string human_number(double x);
// A whole count, exact to a billion ("7,302", "1,048,576"), then as human_number.
std::string human_count(double x);
std::string human_count(long long n);  // exact, grouped: 7,302
inline std::string human_count(int n) { return human_count(static_cast<long long>(n)); }
// "850 µs", "46 ms", "34.7 s", "12 min", "2.1 h", "3.4 days"; 0 is "0 s".
std::string human_seconds(double s);
// "512 MiB", "47 GiB" (binary units, as the memory model counts).
std::string human_bytes(double bytes);
// "942 PFLOP" (SI prefixes up to Y).
std::string human_flops(double flops);
// "42.8%" for 0.428.
std::string human_percent(double fraction);
// "$0.0869" (3 figures under a dollar), "$47.24", "$1,230" (3 figures from a thousand on),
// "$1.2 million".
std::string human_usd(double usd);

}  // namespace gpuplan
