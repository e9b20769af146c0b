/* The one symbol libsxsprof.so exports: every runtime's loader calls it to get the class factory. */
#include "sxs_callback.h"

__attribute__((visibility("default"))) HRESULT DllGetClassObject(REFCLSID rclsid, REFIID riid, void **ppv) {
  return sxs__callback_get_class_object(rclsid, riid, ppv);
}
