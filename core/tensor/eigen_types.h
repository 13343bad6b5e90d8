// The one place for Eigen types: row-major, because tokens are rows, heatmaps paint rows and
// GPU buffers map directly.
#pragma once

#include <Eigen/Core>
#include <string>

namespace attnlab {

using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatMap = Eigen::Map<Mat>;
using ConstMatMap = Eigen::Map<const Mat>;
// A row-major block whose rows are `stride` floats apart (a head's slice of a (B,S,D) tensor).
using StridedMap = Eigen::Map<Mat, 0, Eigen::OuterStride<>>;
using ConstStridedMap = Eigen::Map<const Mat, 0, Eigen::OuterStride<>>;
using Vec = Eigen::Matrix<float, 1, Eigen::Dynamic, Eigen::RowMajor>;
using ConstVecMap = Eigen::Map<const Vec>;

// "3.4.0": the Eigen this build compiled against (the device name, bench's engines).
inline std::string eigen_version() {
  return std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
         std::to_string(EIGEN_MINOR_VERSION);
}

}  // namespace attnlab
