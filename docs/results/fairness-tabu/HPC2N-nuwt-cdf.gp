set terminal svg size 860,480 dynamic font 'sans,12'
set output 'HPC2N-nuwt-cdf.svg'
set title 'HPC2N: per-user normalized wait (users with >= 2 jobs), perfect estimates'
set xlabel 'NUWT (total wait / total run time x size)'
set ylabel 'fraction of users with NUWT <= x'
set xrange [0:10.0]
set yrange [0:1]
set key outside right top
set grid
plot 'HPC2N-nuwt-cdf.dat' index 0 with steps lw 2 title 'fcfs', 'HPC2N-nuwt-cdf.dat' index 1 with steps lw 2 title 'aggressive', 'HPC2N-nuwt-cdf.dat' index 2 with steps lw 2 title 'easy', 'HPC2N-nuwt-cdf.dat' index 3 with steps lw 2 title 'conservative', 'HPC2N-nuwt-cdf.dat' index 4 with steps lw 2 title 'bf-fair', 'HPC2N-nuwt-cdf.dat' index 5 with steps lw 2 title 'tabu', 'HPC2N-nuwt-cdf.dat' index 6 with steps lw 2 dt 2 title 'tabu:safe'
