"""AMD's HIP Python helper types, under the names its programs import.

    from hip._util.types import DeviceArray, Pointer, CStr, ListOfInt

They are this package's own classes (hip/_pointer.pyx): `Pointer` is the base of every
handle, struct and array type here as in AMD's release; `DeviceArray` is our DevicePointer
(what hipMalloc returns), an `NDBuffer`; `CStr` is what `const char*` results are. Every
pointer argument accepts all of them.
"""
from hip._pointer import (CStr, DevicePointer, ImmortalCStr, ListOfBytes, ListOfInt, ListOfPointer, ListOfUnsigned,
                          ListOfUnsignedLong, NDBuffer, Pointer)

DeviceArray = DevicePointer

__all__ = ["Pointer", "CStr", "ImmortalCStr", "DeviceArray", "ListOfBytes", "ListOfPointer", "ListOfInt",
           "ListOfUnsigned", "ListOfUnsignedLong", "NDBuffer"]
