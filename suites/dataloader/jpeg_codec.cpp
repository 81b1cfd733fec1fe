// PLACEHOLDER (issue 41 contract): replaced by branch i41-jpeg. Every call reports the codec
// unavailable, so nothing can mistake this for a working decoder.
#include "suites/dataloader/jpeg_codec.hpp"

#include "util/error.hpp"

namespace gpubench::dataloader {

const JpegCodec* JpegCodec::get(std::string* reason) {
  if (reason != nullptr) *reason = "JPEG codec not built yet (issue 41 placeholder)";
  return nullptr;
}
std::vector<std::uint8_t> JpegCodec::encode_rgb(const std::uint8_t*, int, int, int) const {
  throw infrastructure("JPEG encode", "not built yet (issue 41 placeholder)");
}
bool JpegCodec::read_header(std::span<const std::uint8_t>, int&, int&) const {
  return false;
}
void JpegCodec::decode_rgb(std::span<const std::uint8_t>, DecodedImage&, bool) const {
  throw infrastructure("JPEG decode", "not built yet (issue 41 placeholder)");
}
DecodeDifference compare_images(const DecodedImage&, const DecodedImage&, const DecodeTolerance&) {
  throw infrastructure("image comparison", "not built yet (issue 41 placeholder)");
}
bool within(const DecodeDifference&, const DecodeTolerance&) {
  return false;
}

}  // namespace gpubench::dataloader
