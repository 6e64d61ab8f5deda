"""The results whose constants ``infonce-sym prove`` can replace, with the paper's constants (data
only, so that building the command line imports nothing heavy; used by ``proofs.constants``)."""

#: id -> (the paper's constants, what they are)
EXPLORABLE = {
    "P4": ((4, 1, 3), "c_a, c_p, c_n in (c_a Da + c_p Dp + c_n e^{2/(beta tau)} PM)/tau"),
    "P4.sharp": ((2, 1, 1), "c_a, c_p, c_n in (c_a Da + c_p Dp + c_n e^{2/(beta tau)} PM)/tau"),
    "L1.50": ((4, 1, 3), "c_a, c_p, c_n in (C_Phi ||theta - theta'||/tau)(c_a n_a + c_p n_p + c_n e^{2/(beta tau)} m)"),
    "L1.50.sharp": ((2, 1, 1), "as L1.50"),
    "L1": ((4, 1, 3), "c_a, c_p, c_n in rho_n <= (C_Phi/tau)(c_a Ra + c_p Rp + c_n e Nn) ||theta - theta'||, both cases"),
    "L1.sharp": ((2, 1, 1), "as L1"),
    "L2.upper": (("1/8",), "c in c (e^{2c} - 1)^2/k (the paper's c = 1/8)"),
    "P1.upper": (("1/8",), "c in c (e^{2/tau} - 1)^2/k (the paper's c = 1/8)"),
    "P3": ((2, 12), "c_1, c_2 in R_hat + c_1 Rad + (c_2/tau) sqrt(log(2/delta)/(2n))"),
    "P5": ((96,), "c in (c/tau) sqrt(d_Theta/n) min{a sqrt(log 3 + 1), sqrt(log(1 + 2a) + 1)}, both cases"),
    "T1": ((192, 12), "c_1, c_2 in R_hat + (c_1/tau) sqrt(d/n) min{...} + (c_2/tau) sqrt(log(2/delta)/(2n)) + bias"),
}
