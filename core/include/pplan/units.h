#pragma once
/// Named unit conversions. Inside the core everything is SI (bytes, seconds, FLOP/s);
/// human units appear only at the JSON boundary (json_io.cpp).

namespace pplan::units {

/// Decimal gigabyte: the contract's GB (2.8 TB / 64 = 43.75 GB).
inline constexpr double kBytesPerGB = 1e9;
/// Binary gibibyte, shown only as an extra.
inline constexpr double kBytesPerGiB = 1073741824.0;
/// TFLOP/s to FLOP/s.
inline constexpr double kFlopsPerTflop = 1e12;
/// GB/s (decimal) to bytes/s.
inline constexpr double kBytesPerSecPerGBps = 1e9;
/// Seconds in a day.
inline constexpr double kSecondsPerDay = 86400.0;
/// Seconds in an hour.
inline constexpr double kSecondsPerHour = 3600.0;

}  // namespace pplan::units
