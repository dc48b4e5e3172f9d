//go:build amd64 && !purego

#include "textflag.h"

// func pairScanAVX2(p *byte, n, o1, o2 int, c1, c2, m1, m2 byte) (off int, mask uint32)
//
// For the blocks of 32 start positions at p+0, p+32, … below p+n, finds
// the first where some start s has p[s+o1]|m1 == c1 and p[s+o2]|m2 == c2.
// It returns the block's offset and a mask of those starts (bit i: start
// off+i), or -1 and 0. The caller makes sure every load stays in bounds:
// p[off+o+31] for each block off < n and o in {o1, o2}.
TEXT ·pairScanAVX2(SB), NOSPLIT, $0-52
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ o1+16(FP), R8
	MOVQ o2+24(FP), R9
	VPBROADCASTB c1+32(FP), Y1
	VPBROADCASTB c2+33(FP), Y2
	VPBROADCASTB m1+34(FP), Y3
	VPBROADCASTB m2+35(FP), Y4
	ADDQ SI, R8
	ADDQ SI, R9
	XORQ AX, AX

loop:
	CMPQ AX, CX
	JGE  none
	VMOVDQU  (R8)(AX*1), Y5
	VMOVDQU  (R9)(AX*1), Y6
	VPOR     Y3, Y5, Y5
	VPOR     Y4, Y6, Y6
	VPCMPEQB Y1, Y5, Y5
	VPCMPEQB Y2, Y6, Y6
	VPAND    Y5, Y6, Y5
	VPMOVMSKB Y5, BX
	TESTL    BX, BX
	JNZ      found
	ADDQ     $32, AX
	JMP      loop

found:
	VZEROUPPER
	MOVQ AX, off+40(FP)
	MOVL BX, mask+48(FP)
	RET

none:
	VZEROUPPER
	MOVQ $-1, off+40(FP)
	MOVL $0, mask+48(FP)
	RET

// func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32): XCR0, the register states the OS saves.
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET
