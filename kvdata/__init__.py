"""kvdata: build, load, re-verify and audit the AMDKernelVault corpus."""
__version__ = "0.1.0"
