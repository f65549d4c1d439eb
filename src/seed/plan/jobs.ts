/**
 * Jobs: twenty-five openings across departments, with markdown descriptions. Some closed before the
 * seed epoch, some open until 2030.
 */
import { dayAfterEpoch } from '../epoch';
import { createRandom, seedOf, type Random } from '../random';
import { createSlugRegistry } from '../slugs';
import { sortValueAt } from './sort';
import { UID, type PlannedDocument } from './types';

type Department = 'engineering' | 'design' | 'marketing' | 'operations' | 'sales' | 'programming';
type EmploymentType = 'full-time' | 'part-time' | 'contract' | 'internship';

const OPENINGS: Array<{ title: string; department: Department; type: EmploymentType; remoteFriendly: boolean }> = [
  { title: 'Senior Backend Engineer (Node.js)', department: 'engineering', type: 'full-time', remoteFriendly: true },
  { title: 'Frontend Developer (React)', department: 'engineering', type: 'full-time', remoteFriendly: true },
  { title: 'Site Reliability Engineer', department: 'engineering', type: 'full-time', remoteFriendly: true },
  { title: 'Data Engineer', department: 'engineering', type: 'contract', remoteFriendly: true },
  { title: 'Engineering Manager', department: 'engineering', type: 'full-time', remoteFriendly: false },
  { title: 'Product Designer', department: 'design', type: 'full-time', remoteFriendly: true },
  { title: 'Graphic Designer for Exhibitions', department: 'design', type: 'part-time', remoteFriendly: false },
  { title: 'UX Research Intern', department: 'design', type: 'internship', remoteFriendly: true },
  { title: 'Marketing Manager', department: 'marketing', type: 'full-time', remoteFriendly: false },
  { title: 'Social Media Editor', department: 'marketing', type: 'part-time', remoteFriendly: true },
  { title: 'Press Officer', department: 'marketing', type: 'full-time', remoteFriendly: false },
  { title: 'Content Strategist', department: 'marketing', type: 'contract', remoteFriendly: true },
  { title: 'Stage Technician', department: 'operations', type: 'full-time', remoteFriendly: false },
  { title: 'Lighting Technician', department: 'operations', type: 'part-time', remoteFriendly: false },
  { title: 'Facility Manager', department: 'operations', type: 'full-time', remoteFriendly: false },
  { title: 'Visitor Services Coordinator', department: 'operations', type: 'full-time', remoteFriendly: false },
  { title: 'Event Operations Lead', department: 'operations', type: 'full-time', remoteFriendly: false },
  { title: 'Box Office Assistant', department: 'sales', type: 'part-time', remoteFriendly: false },
  { title: 'Partnerships Manager', department: 'sales', type: 'full-time', remoteFriendly: true },
  { title: 'Museum Shop Assistant', department: 'sales', type: 'part-time', remoteFriendly: false },
  { title: 'Curator for Contemporary Art', department: 'programming', type: 'full-time', remoteFriendly: false },
  { title: 'Music Programme Manager', department: 'programming', type: 'full-time', remoteFriendly: false },
  { title: 'Film Programmer', department: 'programming', type: 'contract', remoteFriendly: true },
  { title: 'Education Programme Coordinator', department: 'programming', type: 'full-time', remoteFriendly: false },
  { title: 'Curatorial Intern (Photography)', department: 'programming', type: 'internship', remoteFriendly: false },
];

/** Yearly salary bands in euros, by department. */
const SALARY: Record<Department, [number, number]> = {
  engineering: [58000, 95000],
  design: [45000, 72000],
  marketing: [42000, 68000],
  operations: [34000, 55000],
  sales: [30000, 52000],
  programming: [40000, 70000],
};

const TASKS: Record<Department, string[]> = {
  engineering: [
    'Design and run the services behind our websites and ticketing',
    'Review code and mentor colleagues',
    'Keep our systems fast, observable and secure',
    'Work with editors to make publishing a pleasure',
  ],
  design: [
    'Shape exhibitions, signage and digital products',
    'Test ideas with visitors early and often',
    'Maintain our design system',
    'Work closely with curators and engineers',
  ],
  marketing: [
    'Plan campaigns for exhibitions and festivals',
    'Write for our newsletter, website and social channels',
    'Work with press and partners',
    'Measure what works and share it',
  ],
  operations: [
    'Prepare halls and stages for events',
    'Look after safety, equipment and maintenance',
    'Coordinate crews on show days',
    'Keep our buildings welcoming for every visitor',
  ],
  sales: [
    'Advise visitors at the box office and in the shop',
    'Handle group bookings and partner packages',
    'Keep stock and cash in order',
    'Bring feedback from visitors back to the team',
  ],
  programming: [
    'Develop the programme for the coming seasons',
    'Work with artists, lenders and partners',
    'Write texts for catalogues and the website',
    'Manage budgets and schedules',
  ],
};

const SKILLS: Record<Department, string[]> = {
  engineering: [
    'Several years of experience with **TypeScript** and **Node.js**',
    'Good knowledge of SQL databases, ideally `PostgreSQL`',
    'Experience with automated testing and CI',
  ],
  design: ['A portfolio that shows your process', 'Fluency in Figma or a similar tool', 'Care for accessibility and typography'],
  marketing: ['Excellent writing in English and German', 'Experience with campaigns in the cultural sector', 'A good eye for images'],
  operations: [
    'Training as an event technician or equivalent experience',
    'Willingness to work evenings and weekends',
    'A calm head when the curtain goes up',
  ],
  sales: [
    'Friendly and confident with visitors',
    'Experience with a ticketing or till system',
    'German and English; any further language is a plus',
  ],
  programming: [
    'A degree in art history, musicology, film studies or a related field',
    'A strong network in your field',
    'Experience in organising exhibitions or festivals',
  ],
};

const description = (title: string, department: Department, remote: boolean, reference: string, random: Random): string =>
  [
    `## About the role`,
    '',
    `We are looking for a **${title}** to join our ${department} team. ${remote ? 'This role can be done *fully remotely* from anywhere in the EU.' : 'You will work on site with the team in our main building.'}`,
    '',
    `### What you will do`,
    '',
    ...random.sample(TASKS[department], 3).map((task) => `- ${task}`),
    '',
    `### What you bring`,
    '',
    ...SKILLS[department].map((skill, index) => `${index + 1}. ${skill}`),
    '',
    `### What we offer`,
    '',
    '- **30 days** of paid holiday',
    '- Free entry to all our venues and festivals, for you and a guest',
    '- A public transport ticket',
    '',
    '> We welcome applications from people of every background. Tell us what you need to take part in the interviews.',
    '',
    `Questions? Read our [guide for applicants](https://culture-hub.example.org/jobs/how-we-hire) or quote the reference \`${reference}\` when you write to us.`,
  ].join('\n');

export const planJobs = (): PlannedDocument[] => {
  const random = createRandom(seedOf('jobs'));
  const slugFor = createSlugRegistry();
  return OPENINGS.map((opening, index) => {
    const slug = slugFor(opening.title);
    const remote = opening.remoteFriendly && random.chance(0.6);
    const [low, high] = SALARY[opening.department];
    const salaryMin = opening.type === 'internship' ? 1600 * 12 : Math.round(random.int(low, (low + high) / 2) / 1000) * 1000;
    const salaryMax = opening.type === 'internship' ? null : Math.round(random.int(salaryMin, high) / 1000) * 1000;
    // A quarter closed before the epoch, a few stay open until 2030, the rest close within months.
    const closesOn =
      index % 4 === 0
        ? dayAfterEpoch(-random.int(5, 60))
        : index % 5 === 1
          ? `2030-${String(random.int(1, 12)).padStart(2, '0')}-28`
          : index % 7 === 3
            ? null
            : dayAfterEpoch(random.int(14, 120));
    return {
      contentType: UID.job,
      key: slug,
      identity: { field: 'slug', value: slug },
      versions: [
        {
          locale: null,
          data: {
            title: opening.title,
            slug,
            sort: sortValueAt(index),
            department: opening.department,
            employmentType: opening.type,
            remote,
            location: remote ? 'Remote (EU)' : random.pick(['Hamburg', 'Berlin', 'Leipzig']),
            // Contracts are quoted per project: no published range.
            salaryMin: opening.type === 'contract' ? null : salaryMin,
            salaryMax: opening.type === 'contract' ? null : salaryMax,
            closesOn,
            contactEmail: 'careers@culture-hub.example.org',
            description: description(opening.title, opening.department, remote, `JOB-${String(index + 101)}`, random),
          },
        },
      ],
      // Two openings are still being written; two were edited after publishing.
      publish: index !== 6 && index !== 19,
      draftChanges: index === 2 || index === 13 ? [{ locale: null, data: { title: `${opening.title} (m/f/d)` } }] : [],
    };
  });
};
