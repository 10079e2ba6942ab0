#include <stdint.h>
#include <stdio.h>
#include <tiffio.h>
