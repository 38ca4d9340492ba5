# bench/plot-common.gp - the gnuplot preamble shared by bench/*/plot.
# Usage, from a plot script:   call common "WIDTH" "HEIGHT"
# (bench/plot-lib.sh sets the gnuplot variables common and res).  Starts a
# figure from scratch: reset, PNG terminal of WIDTH x HEIGHT pixels, CSV
# input, light grid, and the line types every bench plot uses.
reset
set terminal pngcairo size int(ARG1),int(ARG2) font "DejaVu Sans,11" noenhanced
set encoding utf8
set datafile separator ","
set grid back lt 1 lc rgb "#e0e0e0" lw 1
set border 3 back
set tics nomirror out scale 0.6
set key noopaque nobox samplen 3 spacing 1.2
set style fill solid 0.85 border rgb "#333333"
set boxwidth 0.8 relative
# Okabe-Ito colours (colour-blind safe); each type also has its own point
# shape, so series stay apart in greyscale.  Plots add dt 2,3... to tell a
# second dimension (workers, setting) apart within one colour.
set linetype 1 lc rgb "#0072B2" lw 2 pt 7  ps 0.9 dt solid
set linetype 2 lc rgb "#D55E00" lw 2 pt 5  ps 0.9 dt solid
set linetype 3 lc rgb "#009E73" lw 2 pt 9  ps 1.1 dt solid
set linetype 4 lc rgb "#CC79A7" lw 2 pt 13 ps 1.1 dt solid
set linetype 5 lc rgb "#E69F00" lw 2 pt 11 ps 1.1 dt solid
set linetype 6 lc rgb "#56B4E9" lw 2 pt 3  ps 1.0 dt solid
set linetype 7 lc rgb "#000000" lw 2 pt 1  ps 1.0 dt solid
set linetype cycle 7
