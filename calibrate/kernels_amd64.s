#include "textflag.h"

// Streaming kernels for calibrate. n is a multiple of 256 (the caller
// guarantees it); p, dst and src need not be aligned. The copy kernels load
// 256 bytes, then store them: every byte of src is loaded once and every
// byte of dst stored once; dst and src must not overlap.

// func readAVX512(p *byte, n int) uint64
TEXT ·readAVX512(SB), NOSPLIT, $0-24
	MOVQ    p+0(FP), SI
	MOVQ    n+8(FP), CX
	VPXORQ  Z0, Z0, Z0
	VPXORQ  Z1, Z1, Z1
	VPXORQ  Z2, Z2, Z2
	VPXORQ  Z3, Z3, Z3
	SHRQ    $8, CX
	JZ      r512done

r512loop:
	VPADDQ  0(SI), Z0, Z0
	VPADDQ  64(SI), Z1, Z1
	VPADDQ  128(SI), Z2, Z2
	VPADDQ  192(SI), Z3, Z3
	ADDQ    $256, SI
	DECQ    CX
	JNZ     r512loop

r512done:
	VPADDQ        Z1, Z0, Z0
	VPADDQ        Z3, Z2, Z2
	VPADDQ        Z2, Z0, Z0
	VEXTRACTI64X4 $1, Z0, Y1
	VPADDQ        Y1, Y0, Y0
	VEXTRACTI128  $1, Y0, X1
	VPADDQ        X1, X0, X0
	VPSHUFD       $0x4e, X0, X1
	VPADDQ        X1, X0, X0
	VMOVQ         X0, AX
	VZEROUPPER
	MOVQ          AX, ret+16(FP)
	RET

// func writeAVX512(p *byte, n int, v uint64)
TEXT ·writeAVX512(SB), NOSPLIT, $0-24
	MOVQ         p+0(FP), DI
	MOVQ         n+8(FP), CX
	VPBROADCASTQ v+16(FP), Z0
	SHRQ         $8, CX
	JZ           w512done

w512loop:
	VMOVDQU64 Z0, 0(DI)
	VMOVDQU64 Z0, 64(DI)
	VMOVDQU64 Z0, 128(DI)
	VMOVDQU64 Z0, 192(DI)
	ADDQ      $256, DI
	DECQ      CX
	JNZ       w512loop

w512done:
	VZEROUPPER
	RET

// func readAVX2(p *byte, n int) uint64
TEXT ·readAVX2(SB), NOSPLIT, $0-24
	MOVQ  p+0(FP), SI
	MOVQ  n+8(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	SHRQ  $8, CX
	JZ    r2done

r2loop:
	VPADDQ 0(SI), Y0, Y0
	VPADDQ 32(SI), Y1, Y1
	VPADDQ 64(SI), Y2, Y2
	VPADDQ 96(SI), Y3, Y3
	VPADDQ 128(SI), Y4, Y4
	VPADDQ 160(SI), Y5, Y5
	VPADDQ 192(SI), Y6, Y6
	VPADDQ 224(SI), Y7, Y7
	ADDQ   $256, SI
	DECQ   CX
	JNZ    r2loop

r2done:
	VPADDQ       Y1, Y0, Y0
	VPADDQ       Y3, Y2, Y2
	VPADDQ       Y5, Y4, Y4
	VPADDQ       Y7, Y6, Y6
	VPADDQ       Y2, Y0, Y0
	VPADDQ       Y6, Y4, Y4
	VPADDQ       Y4, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDQ       X1, X0, X0
	VPSHUFD      $0x4e, X0, X1
	VPADDQ       X1, X0, X0
	VMOVQ        X0, AX
	VZEROUPPER
	MOVQ         AX, ret+16(FP)
	RET

// func writeAVX2(p *byte, n int, v uint64)
TEXT ·writeAVX2(SB), NOSPLIT, $0-24
	MOVQ         p+0(FP), DI
	MOVQ         n+8(FP), CX
	VPBROADCASTQ v+16(FP), Y0
	SHRQ         $8, CX
	JZ           w2done

w2loop:
	VMOVDQU Y0, 0(DI)
	VMOVDQU Y0, 32(DI)
	VMOVDQU Y0, 64(DI)
	VMOVDQU Y0, 96(DI)
	VMOVDQU Y0, 128(DI)
	VMOVDQU Y0, 160(DI)
	VMOVDQU Y0, 192(DI)
	VMOVDQU Y0, 224(DI)
	ADDQ    $256, DI
	DECQ    CX
	JNZ     w2loop

w2done:
	VZEROUPPER
	RET

// func copyAVX512(dst, src *byte, n int)
TEXT ·copyAVX512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $8, CX
	JZ   c512done

c512loop:
	VMOVDQU64 0(SI), Z0
	VMOVDQU64 64(SI), Z1
	VMOVDQU64 128(SI), Z2
	VMOVDQU64 192(SI), Z3
	VMOVDQU64 Z0, 0(DI)
	VMOVDQU64 Z1, 64(DI)
	VMOVDQU64 Z2, 128(DI)
	VMOVDQU64 Z3, 192(DI)
	ADDQ      $256, SI
	ADDQ      $256, DI
	DECQ      CX
	JNZ       c512loop

c512done:
	VZEROUPPER
	RET

// func copyAVX2(dst, src *byte, n int)
TEXT ·copyAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $8, CX
	JZ   c2done

c2loop:
	VMOVDQU 0(SI), Y0
	VMOVDQU 32(SI), Y1
	VMOVDQU 64(SI), Y2
	VMOVDQU 96(SI), Y3
	VMOVDQU 128(SI), Y4
	VMOVDQU 160(SI), Y5
	VMOVDQU 192(SI), Y6
	VMOVDQU 224(SI), Y7
	VMOVDQU Y0, 0(DI)
	VMOVDQU Y1, 32(DI)
	VMOVDQU Y2, 64(DI)
	VMOVDQU Y3, 96(DI)
	VMOVDQU Y4, 128(DI)
	VMOVDQU Y5, 160(DI)
	VMOVDQU Y6, 192(DI)
	VMOVDQU Y7, 224(DI)
	ADDQ    $256, SI
	ADDQ    $256, DI
	DECQ    CX
	JNZ     c2loop

c2done:
	VZEROUPPER
	RET
