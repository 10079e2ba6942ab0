#include <ZXing/ZXingC.h>
