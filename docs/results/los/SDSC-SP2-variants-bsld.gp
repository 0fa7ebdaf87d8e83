set terminal svg size 800,560 dynamic font 'Helvetica,12'
set key below
set grid
set xlabel 'offered load'
set output 'SDSC-SP2-variants-bsld.svg'
set title 'SDSC-SP2: variants, mean bounded slowdown (tau 10 s)'
set ylabel 'mean bounded slowdown (log scale)'
set logscale y
plot 'SDSC-SP2-variants.dat' using 1:2 with linespoints title 'easy', \
  'SDSC-SP2-variants.dat' using 1:6 with linespoints title 'los', \
  'SDSC-SP2-variants.dat' using 1:10 with linespoints title 'los-basic', \
  'SDSC-SP2-variants.dat' using 1:14 with linespoints title 'los:traceback=selected-first', \
  'SDSC-SP2-variants.dat' using 1:18 with linespoints title 'los-maxjobs', \
  'SDSC-SP2-variants.dat' using 1:22 with linespoints title 'los-maxsd', \
  'SDSC-SP2-variants.dat' using 1:26 with linespoints title 'los:head=once'
