#!/usr/bin/env python3
"""Bit-exact model of H200 tex2DLod trilinear (LINEAR within level, LINEAR between levels),
clamp addressing, normalized coords (what src/mem/trilinear.rs implements), checked against the
data mip_cube_probe.cu writes:  scripts/probes/trilinear_model.py PROBE_OUT"""
import sys
import numpy as np
D=sys.argv[1]+'/'
tc=np.fromfile(D+'tri_coords.f32x4',np.float32).reshape(-1,4)
X=tc[:,0].astype(np.float64); Y=tc[:,1].astype(np.float64); LOD=tc[:,2].astype(np.float64)
N=len(X)
# ---- level selection (already established) ----
Lq=np.clip(np.floor(LOD*256)/256,0,6); l0=np.floor(Lq).astype(int)
K=np.rint((Lq-l0)*256).astype(np.int64); l1=np.minimum(l0+1,6)

def rnd(n):  return (n+128)>>8          # round half up  (n/256)
def rndhd(n):return (n+127)>>8          # round half down(n/256)
def tri_weights(a,b,L):
    """a,b: 8-bit fractions (0..255) of the level's fixed-point coords; L: level weight (256-k or k).
    returns weights of texels (i,j),(i+1,j),(i,j+1),(i+1,j+1); they sum to L."""
    ax=rnd(a*L)                  # x split first
    w11=rnd(b*ax)                # upper-x column split by y, half up
    w01=rndhd(b*(L-ax))          # lower-x column split by y, half down
    return [L-ax-w01, ax-w11, w01, w11]

def coords(l,wid,hei):
    w=np.array(wid)[l]; h=np.array(hei)[l]
    cx=np.clip(X*w,0.5,w-0.5)-0.5; cy=np.clip(Y*h,0.5,h-0.5)-0.5   # clamp coordinate into texel centres
    u=np.floor(cx*256+0.5).astype(np.int64); v=np.floor(cy*256+0.5).astype(np.int64)  # 8-bit fixed point
    return u>>8, u&255, v>>8, v&255

def gather(levels,wid,hei,l,i,j):
    out=np.zeros((N,)+levels[0].shape[2:],levels[0].dtype)
    for q in range(7):
        m=l==q
        if m.any(): out[m]=levels[q][np.clip(j[m],0,hei[q]-1),np.clip(i[m],0,wid[q]-1)]
    return out

def footprint(levels,wid,hei,l,L):
    i,a,j,b=coords(l,wid,hei)
    W=tri_weights(a,b,L)
    T=[gather(levels,wid,hei,l,i+di,j+dj) for di,dj in ((0,0),(1,0),(0,1),(1,1))]
    return W,T

# ---------------- u8x4 read as normalized float ----------------
raw=np.fromfile(D+'mip_u8x4.u8',np.uint8); lv=[]; off=0
wid=[max(1,64>>l) for l in range(7)]; hei=wid
for l in range(7):
    n=wid[l]*hei[l]; lv.append(raw[off*4:(off+n)*4].reshape(hei[l],wid[l],4).astype(np.int64)); off+=n
W0,T0=footprint(lv,wid,hei,l0,256-K); W1,T1=footprint(lv,wid,hei,l1,K)
S=sum(w[:,None]*t*257 for w,t in zip(W0+W1,T0+T1))
pred=((S+128)>>8).astype(np.float32)/np.float32(65535)
G=np.fromfile(D+'tri_u8_lin_mipl.f32x4',np.float32).reshape(-1,4)
print('u8 tri_u8_lin_mipl mismatching values:',int((pred.view(np.uint32)!=G.view(np.uint32)).sum()),'of',G.size)

# ---------------- f32 ----------------
rawf=np.fromfile(D+'mip_rnd.f32',np.float32).astype(np.float64); lvf=[]; off=0
widf=[max(1,64>>l) for l in range(7)]; heif=[max(1,32>>l) for l in range(7)]
for l in range(7):
    n=widf[l]*heif[l]; lvf.append(rawf[off:off+n].reshape(heif[l],widf[l])); off+=n
def level_sum(W,T):
    """per level: E = max frexp exponent of texels with nonzero weight; texels truncated toward 0 to
    multiples of 2^(E-28); integer weighted sum S (value = S*2^(E-28)/256)."""
    W=np.array(W); T=np.array(T); T=np.where(np.abs(T)<2.0**-126,0.0*T,T)   # flush subnormals
    nz=W!=0
    E=np.where(nz&(T!=0),np.frexp(T)[1],-10**6).max(0)
    n=np.trunc(T/np.ldexp(1.0,np.maximum(E,-300)-28))*nz
    return [int(x) for x in (W*n).sum(0).astype(np.int64)], [int(x) for x in E]
def f32_round_away(S,e):   # S*2^e to f32, nearest, ties away from zero
    if S==0: return np.float32(0)
    A=abs(S); sh=A.bit_length()-24
    if sh>0: A=(A+(1<<(sh-1)))>>sh; e+=sh
    return np.float32((1 if S>0 else -1)*float(A)*2.0**e)
def blend_f32(levels_list):
    out=np.zeros(N,np.float32)
    for q in range(N):
        parts=[(S[q],E[q]) for S,E,Lw in levels_list if Lw[q]!=0]
        M=max(E for S,E in parts); m=min(E for S,E in parts)
        T=sum(S<<(E-m) for S,E in parts)          # exact sum, unit 2^(m-36) after /256
        Mq=M-((M-2)%4)                            # = biased exponent of max with low 2 bits cleared
        if Mq>m: T>>=(Mq-m); m=Mq                 # floor (toward -inf) to a multiple of 2^(Mq-36)
        out[q]=f32_round_away(T,m-36)
    return out
W0,T0=footprint(lvf,widf,heif,l0,256-K); W1,T1=footprint(lvf,widf,heif,l1,K)
S0,E0=level_sum(W0,T0); S1,E1=level_sum(W1,T1)
pf=blend_f32([(S0,E0,256-K),(S1,E1,K)])
for fn in ['tri_lin_mipl.f32','tri_lin_mipl_notri.f32']:
    g=np.fromfile(D+fn,np.float32)
    print(fn,'mismatching values:',int((pf.view(np.uint32)!=g.view(np.uint32)).sum()),'of',N)
