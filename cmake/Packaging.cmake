# Installation (`cmake --install`) and the Debian package (`cpack -G DEB`): the binary, a
# .desktop entry, the icon in the usual sizes, AppStream metainfo, the samples and the docs.
# Build the package with the `package` preset (no -march=native: any x86-64 machine):
#   cmake --preset package && cmake --build --preset package && (cd build/package && cpack -G DEB)
include(GNUInstallDirs)

set(ATTNLAB_APP_ID org.attnlab.AttentionLab)
install(FILES ${PROJECT_SOURCE_DIR}/resources/${ATTNLAB_APP_ID}.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${PROJECT_SOURCE_DIR}/resources/${ATTNLAB_APP_ID}.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
# .attnlab sessions as a MIME type (the .desktop entry opens them: Exec=attnlab %f).
install(FILES ${PROJECT_SOURCE_DIR}/resources/${ATTNLAB_APP_ID}.mime.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages
        RENAME ${ATTNLAB_APP_ID}.xml)
foreach(size 16 32 48 64 128 256)
  install(FILES ${PROJECT_SOURCE_DIR}/resources/icons/attnlab-${size}.png
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps RENAME attnlab.png)
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/resources/icons/attnlab.svg DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/sample_inputs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/attnlab/sample_inputs)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_PACKAGE_NAME attnlab)
set(CPACK_PACKAGE_VENDOR "Attention Lab")
set(CPACK_PACKAGE_CONTACT "Attention Lab developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "multi-head attention, step by step, for teaching")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
       "Attention Lab steps a Transformer encoder (and decoder) through every operation of multi-head\n"
       "attention, showing shapes and strides, formulas, the equivalent PyTorch line, values and\n"
       "per-head heatmaps; with shape-debugging exercises and an optional Vulkan compute path.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION education)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # Depends: from the libraries the binary links (dpkg-shlibdeps)
# …and Qt's platform plugins (xcb, wayland), which libqt6gui6 only recommends: no window without.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins")
# Loaded at run time, not linked: the Vulkan loader (dlopen) and a driver; the CJK font for the
# Chinese sentences and exercises.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libvulkan1, mesa-vulkan-drivers, fonts-noto-cjk, qt6-translations-l10n")
include(CPack)
